
.
in0Placeholder*
dtype0*
shape:

StringStripStringStripin0"ª