
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
1
countsPlaceholder*
dtype0*
shape:
0
probsPlaceholder*
dtype0*
shape:
z
StatelessRandomBinomialStatelessRandomBinomialshapeseedcountsprobs*
S0*
Tseed0	*
T0*
dtype0	"ª