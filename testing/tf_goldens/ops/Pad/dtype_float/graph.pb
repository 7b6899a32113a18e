
,
xPlaceholder*
dtype0*
shape:
3
paddingsPlaceholder*
dtype0*
shape:
1
PadPadxpaddings*
	Tpaddings0*
T0"ª