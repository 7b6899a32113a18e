
4
	gradientsPlaceholder*
dtype0*
shape:
2
outputsPlaceholder*
dtype0*
shape:
/
EluGradEluGrad	gradientsoutputs*
T0"ª