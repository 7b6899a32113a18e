
-
x0Placeholder*
dtype0*
shape:
-
x1Placeholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
@
ConcatV2ConcatV2x0x1axis*
N*

Tidx0*
T0"ª