
.
arrPlaceholder*
dtype0*
shape:
/
sizePlaceholder*
dtype0*
shape:
2
weightsPlaceholder*
dtype0*
shape:
1
BincountBincountarrsizeweights*
T0"ª