
,
xPlaceholder*
dtype0*
shape:
/
axisPlaceholder*
dtype0*
shape:
P
CumprodCumprodxaxis*

Tidx0*
T0*
	exclusive(*
reverse("ª