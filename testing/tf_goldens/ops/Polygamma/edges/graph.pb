
,
aPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:
%
	Polygamma	Polygammaax*
T0"ª