
-
s0Placeholder*
dtype0*
shape:
-
s1Placeholder*
dtype0*
shape:
;

StringJoin
StringJoins0s1*
N*
	separator-"ª