
,
xPlaceholder*
dtype0*
shape:
$

LogSoftmax
LogSoftmaxx*
T0"ª