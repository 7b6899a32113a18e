
.
in0Placeholder*
dtype0*
shape:
!
DecodeBase64DecodeBase64in0"ª