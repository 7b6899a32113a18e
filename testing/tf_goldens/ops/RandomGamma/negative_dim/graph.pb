
0
shapePlaceholder*
dtype0*
shape:
0
alphaPlaceholder*
dtype0*
shape:
S
RandomGammaRandomGammashapealpha*
S0*
T0*
seed2	*

seed"ª