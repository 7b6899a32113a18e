
,
xPlaceholder*
dtype0*
shape:
w
	MaxPool3D	MaxPool3Dx*
T0*
data_formatNDHWC*
ksize	
*
paddingSAME*
strides	
"ª