
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
$
TanhGradTanhGradydy*
T0"ª