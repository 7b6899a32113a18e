
-
x0Placeholder*
dtype0*
shape:
-
x1Placeholder*
dtype0*
shape:
-
x2Placeholder*
dtype0*
shape:
Q
AccumulateNV2AccumulateNV2x0x1x2*
N*
T0*
shape
:"ª