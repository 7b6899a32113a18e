
1
logitsPlaceholder*
dtype0*
shape:
6
num_samplesPlaceholder*
dtype0*
shape:
e
MultinomialMultinomiallogitsnum_samples*
T0*
output_dtype0	*
seed2*

seed"ª