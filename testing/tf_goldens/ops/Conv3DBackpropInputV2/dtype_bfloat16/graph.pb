
6
input_sizesPlaceholder*
dtype0*
shape:
1
filterPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
·
Conv3DBackpropInputV2Conv3DBackpropInputV2input_sizesfilterdy*
Tshape0*
T0*
data_formatNDHWC*
	dilations	
*
paddingSAME*
strides	
"ª