
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
,
iPlaceholder*
dtype0*
shape:
4
	get_shapePlaceholder*
dtype0*
shape:
j
TensorListGetItemTensorListGetItemTensorListReservei	get_shape*
Tshape0*
element_dtype0"ª