
,
xPlaceholder*
dtype0*
shape:
0
shapePlaceholder*
dtype0*
shape:
p
TensorListFromTensorTensorListFromTensorxshape*
element_dtype0*

shape_type0:éèÒ
,
pPlaceholder*
dtype0*
shape:
T
TensorListPopBackTensorListPopBackTensorListFromTensorp*
element_dtype0
7
TensorListLengthTensorListLengthTensorListPopBack"ª