
.
in0Placeholder*
dtype0*
shape:
G
StaticRegexFullMatchStaticRegexFullMatchin0*
pattern	日.語"�