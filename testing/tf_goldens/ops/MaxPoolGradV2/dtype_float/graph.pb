
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
,
kPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
b
MaxPoolGradV2MaxPoolGradV2xydyks*
T0*
data_formatNHWC*
paddingVALID"ª