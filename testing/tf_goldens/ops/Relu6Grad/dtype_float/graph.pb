
4
	gradientsPlaceholder*
dtype0*
shape:
3
featuresPlaceholder*
dtype0*
shape:
4
	Relu6Grad	Relu6Grad	gradientsfeatures*
T0"ª