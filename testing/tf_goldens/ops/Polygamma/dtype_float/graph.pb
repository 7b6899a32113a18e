
,
aPlaceholder*
dtype0*
shape:
.
a_1Placeholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
'
	Polygamma	Polygammaa_1x*
T0"ª