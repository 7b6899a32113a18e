
.
in0Placeholder*
dtype0*
shape:
:
ShapeShapein0*
T0*
out_type0:íÏ"ª