
.
in0Placeholder*
dtype0*
shape:
6
StringLengthStringLengthin0*
unit	UTF8_CHAR"ª