
.
in0Placeholder*
dtype0*
shape:
7
ShapeNShapeNin0*
N*
T0*
out_type0	"ª