
,
xPlaceholder*
dtype0*
shape:

RsqrtRsqrtx*
T0"ª