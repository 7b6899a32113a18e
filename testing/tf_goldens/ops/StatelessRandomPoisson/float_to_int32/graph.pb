
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
.
lamPlaceholder*
dtype0*
shape:
r
StatelessRandomPoissonStatelessRandomPoissonshapeseedlam*
Rtype0*
Tseed0	*
T0*
dtype0"ª