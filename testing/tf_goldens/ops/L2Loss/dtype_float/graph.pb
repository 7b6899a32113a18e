
,
tPlaceholder*
dtype0*
shape:

L2LossL2Losst*
T0"ª