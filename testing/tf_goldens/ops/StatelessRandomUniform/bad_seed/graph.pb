
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
`
StatelessRandomUniformStatelessRandomUniformshapeseed*
Tseed0	*
T0*
dtype0"ª