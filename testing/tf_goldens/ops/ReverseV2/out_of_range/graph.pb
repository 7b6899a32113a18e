
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
4
	ReverseV2	ReverseV2xaxis*

Tidx0*
T0"ª