
2
indicesPlaceholder*
dtype0*
shape:
0
depthPlaceholder*
dtype0*
shape:
-
onPlaceholder*
dtype0*
shape:
.
offPlaceholder*
dtype0*
shape:
Q
OneHotOneHotindicesdepthonoff*
TI0*
T0*
axisÿÿÿÿÿÿÿÿÿ"ª