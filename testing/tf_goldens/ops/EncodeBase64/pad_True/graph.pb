
.
in0Placeholder*
dtype0*
shape:
,
EncodeBase64EncodeBase64in0*	
pad("ª