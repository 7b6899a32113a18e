
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
A
ArgMaxArgMaxxaxis*

Tidx0*
T0*
output_type0	"ª