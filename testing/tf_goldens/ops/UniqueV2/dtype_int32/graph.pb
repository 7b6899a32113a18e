
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0	*
shape:
B
UniqueV2UniqueV2xaxis*
Taxis0	*
T0*
out_idx0"ª