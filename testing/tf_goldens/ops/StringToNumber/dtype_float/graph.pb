
.
in0Placeholder*
dtype0*
shape:
5
StringToNumberStringToNumberin0*
out_type0"ª