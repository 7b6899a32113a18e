
.
in0Placeholder*
dtype0*
shape:
m
StaticRegexReplaceStaticRegexReplacein0*
pattern
(\w)(\d)*
replace_global(*
rewrite\2\1"ª