
,
aPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
)
IgammaGradAIgammaGradAax*
T0"ª