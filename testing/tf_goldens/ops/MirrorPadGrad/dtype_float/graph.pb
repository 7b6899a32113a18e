
,
xPlaceholder*
dtype0*
shape:
3
paddingsPlaceholder*
dtype0*
shape:
X
MirrorPadGradMirrorPadGradxpaddings*
	Tpaddings0*
T0*
mode	REFLECT"ª