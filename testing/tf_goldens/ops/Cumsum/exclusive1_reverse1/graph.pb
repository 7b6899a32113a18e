
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
N
CumsumCumsumxaxis*

Tidx0*
T0*
	exclusive(*
reverse("ª