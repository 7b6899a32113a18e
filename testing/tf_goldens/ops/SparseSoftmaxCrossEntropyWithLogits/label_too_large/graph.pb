
1
logitsPlaceholder*
dtype0*
shape:
1
labelsPlaceholder*
dtype0*
shape:
r
#SparseSoftmaxCrossEntropyWithLogits#SparseSoftmaxCrossEntropyWithLogitslogitslabels*
Tlabels0*
T0"ª