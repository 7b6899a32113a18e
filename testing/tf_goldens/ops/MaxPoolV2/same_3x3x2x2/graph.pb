
,
xPlaceholder*
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
R
	MaxPoolV2	MaxPoolV2xks*
T0*
data_formatNHWC*
paddingSAME"ª