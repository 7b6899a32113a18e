
1
logitsPlaceholder*
dtype0*
shape:
6
num_samplesPlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
q
StatelessMultinomialStatelessMultinomiallogitsnum_samplesseed*
Tseed0	*
T0*
output_dtype0	"ª