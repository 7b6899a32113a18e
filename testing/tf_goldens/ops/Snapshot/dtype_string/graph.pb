
,
xPlaceholder*
dtype0*
shape:
 
SnapshotSnapshotx*
T0"ª