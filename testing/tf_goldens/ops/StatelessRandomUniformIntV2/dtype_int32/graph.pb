
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
.
keyPlaceholder*
dtype0*
shape:
2
counterPlaceholder*
dtype0*
shape:
.
algPlaceholder*
dtype0*
shape:

StatelessRandomUniformIntV2StatelessRandomUniformIntV2shapekeycounteralgminvalmaxval*
Tshape0*
dtype0"ª