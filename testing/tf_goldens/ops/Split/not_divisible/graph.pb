
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
1
SplitSplitaxisx*
T0*
	num_split"ª