
0
shapePlaceholder*
dtype0*
shape:
0
meansPlaceholder*
dtype0*
shape:
1
stdevsPlaceholder*
dtype0*
shape:
2
minvalsPlaceholder*
dtype0*
shape:
2
maxvalsPlaceholder*
dtype0*
shape:
“
ParameterizedTruncatedNormalParameterizedTruncatedNormalshapemeansstdevsminvalsmaxvals*
T0*
dtype0*
seed2*

seed"ª