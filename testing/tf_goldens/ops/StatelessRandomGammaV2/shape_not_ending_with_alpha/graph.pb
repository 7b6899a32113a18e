
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
.
in0Placeholder*
dtype0*
shape:
e
StatelessRandomGammaV2StatelessRandomGammaV2shapeseedin0*
Tseed0	*
T0*
dtype0"ª