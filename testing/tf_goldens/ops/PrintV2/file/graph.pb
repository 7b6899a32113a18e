
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
n
StringFormatStringFormatin0in1*
T
2*
placeholder{}*
	summarize*
template{} {}
S
PrintV2PrintV2StringFormat*

end
*%
output_streamfile://printed.txt"ª