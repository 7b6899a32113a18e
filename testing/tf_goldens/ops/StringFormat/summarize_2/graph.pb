
.
in0Placeholder*
dtype0
*
shape:
.
in1Placeholder*
dtype0	*
shape:
.
in2Placeholder*
dtype0*
shape:
.
in3Placeholder*
dtype0*
shape:
.
in4Placeholder*
dtype0*
shape:
.
in5Placeholder*
dtype0*
shape:
.
in6Placeholder*
dtype0*
shape:
.
in7Placeholder*
dtype0*
shape:
.
in8Placeholder*
dtype0*
shape:
.
in9Placeholder*
dtype0*
shape:
/
in10Placeholder*
dtype0*
shape:
À
StringFormatStringFormatin0in1in2in3in4in5in6in7in8in9in10*
T
2
	*
placeholder{}*
	summarize*.
template" {} {} {} {} {} {} {} {} {} {} {}"ª