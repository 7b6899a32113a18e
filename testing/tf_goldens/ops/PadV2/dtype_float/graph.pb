
,
xPlaceholder*
dtype0*
shape:
3
paddingsPlaceholder*
dtype0*
shape:
-
cvPlaceholder*
dtype0*
shape:
9
PadV2PadV2xpaddingscv*
	Tpaddings0*
T0"ª