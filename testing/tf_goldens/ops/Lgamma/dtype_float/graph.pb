
,
xPlaceholder*
dtype0*
shape:

LgammaLgammax*
T0"ª