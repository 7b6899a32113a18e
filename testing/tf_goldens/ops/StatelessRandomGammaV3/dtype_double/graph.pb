
0
shapePlaceholder*
dtype0*
shape:
0
alphaPlaceholder*
dtype0*
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
q
StatelessRandomGammaV3StatelessRandomGammaV3shapekeycounteralgalpha*
dtype0*
shape_dtype0"ª