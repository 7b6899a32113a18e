
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
1
minvalPlaceholder*
dtype0*
shape:
1
maxvalPlaceholder*
dtype0*
shape:
v
StatelessRandomUniformIntStatelessRandomUniformIntshapeseedminvalmaxval*
Tseed0	*
T0*
dtype0"ª