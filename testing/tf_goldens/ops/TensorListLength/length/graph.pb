
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
7
TensorListLengthTensorListLengthTensorListReserve"ª