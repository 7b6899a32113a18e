
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0	*
shape:
‚
UnicodeEncodeUnicodeEncodein0in1*
Tsplits0	*
errors	replace*
output_encodingUTF-8*
replacement_charýÿ"ª