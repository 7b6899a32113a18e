
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
,
kPlaceholder*
dtype0*
shape:
,
sPlaceholder*
dtype0*
shape:
k
MaxPoolGradGradV2MaxPoolGradGradV2xyddxks*
T0*
data_formatNHWC*
paddingVALID"ª