
-
s0Placeholder*
dtype0*
shape:
-
s1Placeholder*
dtype0*
shape:
/
BroadcastArgsBroadcastArgss0s1*
T0"ª