
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
<
ShapeNShapeNin0in1*
N*
T0*
out_type0"ª