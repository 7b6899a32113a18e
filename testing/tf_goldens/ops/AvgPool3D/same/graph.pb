
,
xPlaceholder*
dtype0*
shape:
w
	AvgPool3D	AvgPool3Dx*
T0*
data_formatNDHWC*
ksize	
*
paddingSAME*
strides	
"ª