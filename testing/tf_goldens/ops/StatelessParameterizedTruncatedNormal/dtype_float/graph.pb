
0
shapePlaceholder*
dtype0*
shape:
/
seedPlaceholder*
dtype0	*
shape:
0
meansPlaceholder*
dtype0*
shape:
2
stddevsPlaceholder*
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
 
%StatelessParameterizedTruncatedNormal%StatelessParameterizedTruncatedNormalshapeseedmeansstddevsminvalsmaxvals*
S0*
Tseed0	*
dtype0"ª