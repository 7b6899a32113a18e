
.
in0Placeholder*
dtype0*
shape:
4
StringUpperStringUpperin0*
encodingutf-8"ª