
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

SubSubxy*
T0"ª