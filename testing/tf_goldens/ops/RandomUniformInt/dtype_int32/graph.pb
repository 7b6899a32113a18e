
0
shapePlaceholder*
dtype0*
shape:
1
minvalPlaceholder*
dtype0*
shape:
1
maxvalPlaceholder*
dtype0*
shape:
i
RandomUniformIntRandomUniformIntshapeminvalmaxval*

Tout0*
T0*
seed2*

seed"ª