
,
sPlaceholder*
dtype0*
shape:
F
StaticRegexFullMatchStaticRegexFullMatchs*
pattern
^s3://.*"ª