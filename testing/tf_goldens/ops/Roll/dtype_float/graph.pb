
,
xPlaceholder*
dtype0*
shape:
0
shiftPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
@
RollRollxshiftaxis*
Taxis0*
Tshift0*
T0"ª