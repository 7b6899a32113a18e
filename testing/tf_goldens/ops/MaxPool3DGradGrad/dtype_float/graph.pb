
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
.
ddxPlaceholder*
dtype0*
shape:
ê
MaxPool3DGradGradMaxPool3DGradGradxyddx*
T0*
data_formatNDHWC*
ksize	
*
paddingVALID*
strides	
"™