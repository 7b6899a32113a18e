
-
dyPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
0
scalePlaceholder*
dtype0*
shape:
/
meanPlaceholder*
dtype0*
shape:
3
variancePlaceholder*
dtype0*
shape:
.
rs3Placeholder*
dtype0*
shape:
ù
FusedBatchNormGradV3FusedBatchNormGradV3dyxscalemeanvariancers3*
T0*
U0*
data_formatNHWC*
epsilon%oÉ:*
is_training("™