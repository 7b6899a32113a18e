
,
xPlaceholder*
dtype0*
shape:
,
yPlaceholder*
dtype0*
shape:
+
GreaterEqualGreaterEqualxy*
T0"ª