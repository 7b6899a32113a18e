
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
6
stack_shapePlaceholder*
dtype0*
shape:
w
TensorListStackTensorListStackTensorListFromTensorstack_shape*
element_dtype0*
num_elementsÿÿÿÿÿÿÿÿÿ
:
TensorListLengthTensorListLengthTensorListFromTensor"ª