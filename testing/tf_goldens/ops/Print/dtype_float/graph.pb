
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
n
PrintPrintin0in0in1*
T0*
U
2*
first_nÿÿÿÿÿÿÿÿÿ*
messagex: *
	summarize"ª