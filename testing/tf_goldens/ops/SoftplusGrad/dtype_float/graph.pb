
4
	gradientsPlaceholder*
dtype0*
shape:
3
featuresPlaceholder*
dtype0*
shape:
:
SoftplusGradSoftplusGrad	gradientsfeatures*
T0"ª