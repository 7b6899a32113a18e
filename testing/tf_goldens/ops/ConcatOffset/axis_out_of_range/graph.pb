
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
F
ConcatOffsetConcatOffsetdimin0in1*
N*

shape_type0"ª