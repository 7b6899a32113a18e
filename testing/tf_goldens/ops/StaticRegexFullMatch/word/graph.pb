
.
in0Placeholder*
dtype0*
shape:
F
StaticRegexFullMatchStaticRegexFullMatchin0*
pattern[a-z]+"ª