
.
in0Placeholder*
dtype0*
shape:
k
StringFormatStringFormatin0*

T
2*
placeholder{}*
	summarize*
template
x = {} !"ª