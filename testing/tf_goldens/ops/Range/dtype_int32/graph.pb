
0
startPlaceholder*
dtype0*
shape:
0
limitPlaceholder*
dtype0*
shape:
0
deltaPlaceholder*
dtype0*
shape:
/
RangeRangestartlimitdelta*

Tidx0"ª