
.
in0Placeholder*
dtype0*
shape:
1
StringLengthStringLengthin0*
unitBYTE"ª