
.
in0Placeholder*
dtype0*
shape:
F
AccumulateNV2AccumulateNV2in0*
N*
T0*
shape:"ª