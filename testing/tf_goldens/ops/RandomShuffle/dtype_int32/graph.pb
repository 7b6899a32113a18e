
.
in0Placeholder*
dtype0*
shape:
E
RandomShuffleRandomShufflein0*
T0*
seed2*

seed"ª