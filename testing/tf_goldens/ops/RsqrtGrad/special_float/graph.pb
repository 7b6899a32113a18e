
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
)
	RsqrtGrad	RsqrtGradin0in1*
T0"ª