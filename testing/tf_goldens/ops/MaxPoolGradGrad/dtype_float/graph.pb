
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
‰
MaxPoolGradGradMaxPoolGradGradxyddx*
T0*
data_formatNHWC*
ksize
*
paddingVALID*
strides
"ª