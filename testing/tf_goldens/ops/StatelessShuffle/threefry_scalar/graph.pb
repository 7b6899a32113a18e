
.
in0Placeholder*
dtype0*
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
E
StatelessShuffleStatelessShufflein0keycounteralg*
T0"ª