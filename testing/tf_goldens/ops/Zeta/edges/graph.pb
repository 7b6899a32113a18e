
,
xPlaceholder*
dtype0*
shape:
,
qPlaceholder*
dtype0*
shape:

ZetaZetaxq*
T0"ª