
0
inputPlaceholder*
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
^
DenseBincountDenseBincountinputsizeweights*

Tidx0*
T0*
binary_output("ª