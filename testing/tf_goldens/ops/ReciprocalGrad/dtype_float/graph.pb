
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
0
ReciprocalGradReciprocalGradydy*
T0"ª