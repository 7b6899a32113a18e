
,
sPlaceholder*
dtype0*
shape:
A
StaticRegexFullMatchStaticRegexFullMatchs*
patterna.c"ª