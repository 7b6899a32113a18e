
3
max_sizePlaceholder*
dtype0*
shape:
@
StackV2StackV2max_size*
	elem_type0*

stack_names
2

StackPopV2
StackPopV2StackV2*
	elem_type0"ª