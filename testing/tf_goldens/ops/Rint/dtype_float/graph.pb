
,
xPlaceholder*
dtype0*
shape:

RintRintx*
T0"ª