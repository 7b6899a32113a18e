
,
xPlaceholder*
dtype0*
shape:
+
UniqueUniquex*
T0*
out_idx0"ª