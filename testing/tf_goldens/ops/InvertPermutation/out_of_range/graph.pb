
,
xPlaceholder*
dtype0*
shape:
2
InvertPermutationInvertPermutationx*
T0"ª