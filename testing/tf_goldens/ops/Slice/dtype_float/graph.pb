
,
xPlaceholder*
dtype0*
shape:
0
beginPlaceholder*
dtype0*
shape:
/
sizePlaceholder*
dtype0*
shape:
4
SliceSlicexbeginsize*
Index0*
T0"ª