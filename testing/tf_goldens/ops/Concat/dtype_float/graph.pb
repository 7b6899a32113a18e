
.
dimPlaceholder*
dtype0*
shape:
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
1
ConcatConcatdimin0in1*
N*
T0"ª