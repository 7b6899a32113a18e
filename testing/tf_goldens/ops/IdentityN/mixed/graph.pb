
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
.
in3Placeholder*
dtype0
*
shape:
9
	IdentityN	IdentityNin0in1in2in3*
T
2
"ª