
,
xPlaceholder*
dtype0*
shape:
(
StopGradientStopGradientx*
T0"ª