
0
inputPlaceholder*
dtype0*
shape:
$
CholeskyCholeskyinput*
T0"ª