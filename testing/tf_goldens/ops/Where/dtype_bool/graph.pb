
.
in0Placeholder*
dtype0
*
shape:

WhereWherein0*
T0
"ª