
,
tPlaceholder*
dtype0*
shape:
-
loPlaceholder*
dtype0*
shape:
-
hiPlaceholder*
dtype0*
shape:
.
ClipByValueClipByValuetlohi*
T0"ª