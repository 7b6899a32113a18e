
.
in0Placeholder*
dtype0*
shape:

RankRankin0*
T0"ª