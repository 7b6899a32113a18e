
4
	gradientsPlaceholder*
dtype0*
shape:
2
outputsPlaceholder*
dtype0*
shape:
1
SeluGradSeluGrad	gradientsoutputs*
T0"ª