
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
.
in0Placeholder*
dtype0*
shape:
h
TensorListPushBackTensorListPushBackTensorListReservein0*
element_dtype0:éèÒ
8
TensorListLengthTensorListLengthTensorListPushBack"ª