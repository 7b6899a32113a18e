
0
shapePlaceholder*
dtype0*
shape:
/
ratePlaceholder*
dtype0*
shape:
g
RandomPoissonV2RandomPoissonV2shaperate*
R0*
S0*
dtype0	*
seed2*

seed"ª