
,
xPlaceholder*
dtype0*
shape:
0
sizesPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
F
SplitVSplitVxsizesaxis*

Tlen0*
T0*
	num_split"ª