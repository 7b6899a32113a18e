
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

AddAddxy*
T0"ª