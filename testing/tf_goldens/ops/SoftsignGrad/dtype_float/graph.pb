
4
	gradientsPlaceholder*
dtype0*
shape:
3
featuresPlaceholder*
dtype0*
shape:
:
SoftsignGradSoftsignGrad	gradientsfeatures*
T0"ª