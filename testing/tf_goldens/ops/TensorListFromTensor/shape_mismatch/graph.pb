
.
in0Placeholder*
dtype0*
shape:
0
shapePlaceholder*
dtype0*
shape:
r
TensorListFromTensorTensorListFromTensorin0shape*
element_dtype0*

shape_type0:éèÒ
6
stack_shapePlaceholder*
dtype0*
shape:
w
TensorListStackTensorListStackTensorListFromTensorstack_shape*
element_dtype0*
num_elementsÿÿÿÿÿÿÿÿÿ"ª