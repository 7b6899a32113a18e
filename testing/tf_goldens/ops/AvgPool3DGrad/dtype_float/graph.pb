
0
shapePlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
ˆ
AvgPool3DGradAvgPool3DGradshapedy*
T0*
data_formatNDHWC*
ksize	
*
paddingVALID*
strides	
"ª