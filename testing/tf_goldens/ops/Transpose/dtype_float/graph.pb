
,
xPlaceholder*
dtype0*
shape:
/
permPlaceholder*
dtype0*
shape:
5
	Transpose	Transposexperm*
Tperm0*
T0"ª