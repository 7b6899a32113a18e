
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
.
in2Placeholder*
dtype0*
shape:
A
RegexReplaceRegexReplacein0in1in2*
replace_global("ª