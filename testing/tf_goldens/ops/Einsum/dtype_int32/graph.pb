
-
x0Placeholder*
dtype0*
shape:
-
x1Placeholder*
dtype0*
shape:
C
EinsumEinsumx0x1*
N*
T0*
equation	ij,jk->ik"ª