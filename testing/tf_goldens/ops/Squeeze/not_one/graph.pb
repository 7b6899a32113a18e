
,
xPlaceholder*
dtype0*
shape:
5
SqueezeSqueezex*
T0*
squeeze_dims
"ª