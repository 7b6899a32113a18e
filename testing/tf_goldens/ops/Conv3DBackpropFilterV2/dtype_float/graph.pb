
0
inputPlaceholder*
dtype0*
shape:
7
filter_sizesPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
«
Conv3DBackpropFilterV2Conv3DBackpropFilterV2inputfilter_sizesdy*
T0*
data_formatNDHWC*
	dilations	
*
paddingSAME*
strides	
"ª