
.
dimPlaceholder*
dtype0*
shape:
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
K
ConcatOffsetConcatOffsetdimin0in1in2*
N*

shape_type0"ª