
0
shapePlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
Å
AvgPoolGradAvgPoolGradshapedy*
T0*
data_formatNHWC*
ksize
*
paddingVALID*
strides
"™