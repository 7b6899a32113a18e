
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:

AddV2AddV2xy*
T0"ª