
,
xPlaceholder*
dtype0*
shape:
x
	MaxPool3D	MaxPool3Dx*
T0*
data_formatNDHWC*
ksize	
*
paddingVALID*
strides	
"ª