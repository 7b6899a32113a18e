
-
i0Placeholder*
dtype0*
shape:
-
i1Placeholder*
dtype0*
shape:
-
d0Placeholder*
dtype0*
shape:
-
d1Placeholder*
dtype0*
shape:
@
DynamicStitchDynamicStitchi0i1d0d1*
N*
T0"ª