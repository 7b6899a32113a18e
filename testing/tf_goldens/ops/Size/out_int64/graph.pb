
.
in0Placeholder*
dtype0*
shape:
*
SizeSizein0*
T0*
out_type0	"ª