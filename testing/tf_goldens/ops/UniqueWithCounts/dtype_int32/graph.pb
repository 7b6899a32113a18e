
,
xPlaceholder*
dtype0*
shape:
?
UniqueWithCountsUniqueWithCountsx*
T0*
out_idx0"ª