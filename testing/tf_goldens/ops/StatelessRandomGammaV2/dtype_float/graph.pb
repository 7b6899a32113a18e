
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
0
alphaPlaceholder*
dtype0*
shape:
g
StatelessRandomGammaV2StatelessRandomGammaV2shapeseedalpha*
Tseed0	*
T0*
dtype0"ª