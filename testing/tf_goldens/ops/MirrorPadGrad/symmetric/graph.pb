
,
xPlaceholder*
dtype0*
shape:
3
paddingsPlaceholder*
dtype0*
shape:
Z
MirrorPadGradMirrorPadGradxpaddings*
	Tpaddings0*
T0*
mode	SYMMETRIC"ª