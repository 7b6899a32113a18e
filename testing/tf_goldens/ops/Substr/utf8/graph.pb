
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
=
SubstrSubstrin0in1in2*
T0*
unit	UTF8_CHAR"ª