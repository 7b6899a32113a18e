
0
shapePlaceholder*
dtype0*
shape:
.
in0Placeholder*
dtype0*
shape:
f
RandomPoissonV2RandomPoissonV2shapein0*
R0*
S0*
dtype0	*
seed2*

seed"ª