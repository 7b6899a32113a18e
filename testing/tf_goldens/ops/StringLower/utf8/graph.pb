
.
in0Placeholder*
dtype0*
shape:
4
StringLowerStringLowerin0*
encodingutf-8"ª