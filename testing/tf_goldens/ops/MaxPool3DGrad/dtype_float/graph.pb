
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
•
MaxPool3DGradMaxPool3DGradxydy*
TInput0*
T0*
data_formatNDHWC*
ksize	
*
paddingVALID*
strides	
"ª