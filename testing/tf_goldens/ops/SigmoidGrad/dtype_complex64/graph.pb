
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
*
SigmoidGradSigmoidGradydy*
T0"ª