
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
*
RegexFullMatchRegexFullMatchin0in1"ª