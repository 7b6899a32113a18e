
1
logitsPlaceholder*
dtype0*
shape:
1
labelsPlaceholder*
dtype0*
shape:
W
SoftmaxCrossEntropyWithLogitsSoftmaxCrossEntropyWithLogitslogitslabels*
T0"ª