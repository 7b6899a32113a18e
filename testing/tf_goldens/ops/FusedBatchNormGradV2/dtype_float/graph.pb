
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
˜
FusedBatchNormGradV2FusedBatchNormGradV2dyxscalemeanvariance*
T0*
U0*
data_formatNHWC*
epsilon%oƒ:*
is_training("ª