
0
shapePlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
j
TensorListReserveTensorListReserveshapen*
element_dtype0*

shape_type0:éèÒ
6
stack_shapePlaceholder*
dtype0*
shape:
k
TensorListStackTensorListStackTensorListReservestack_shape*
element_dtype0*
num_elements"ª