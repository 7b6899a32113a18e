
0
boxesPlaceholder*
dtype0*
shape:
1
scoresPlaceholder*
dtype0*
shape:
.
maxPlaceholder*
dtype0*
shape:
.
iouPlaceholder*
dtype0*
shape:
0
scorePlaceholder*
dtype0*
shape:
0
sigmaPlaceholder*
dtype0*
shape:
x
NonMaxSuppressionV5NonMaxSuppressionV5boxesscoresmaxiouscoresigma*
T0*
pad_to_max_output_size("ª