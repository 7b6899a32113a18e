
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
*
AddNAddNx0x1x2*
N*
T0"ª