
,
aPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:

IgammaIgammaax*
T0"ª