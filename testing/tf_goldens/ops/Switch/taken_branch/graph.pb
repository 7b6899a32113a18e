
,
xPlaceholder*
dtype0*
shape:
/
predPlaceholder*
dtype0
*
shape:
"
SwitchSwitchxpred*
T0"ª