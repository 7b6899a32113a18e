
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
pPlaceholder*
dtype0*
shape:
Q
TensorListPopBackTensorListPopBackTensorListReservep*
element_dtype0"ª