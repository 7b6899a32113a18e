
,
aPlaceholder*
dtype0*
shape:
,
bPlaceholder*
dtype0*
shape:
,
xPlaceholder*
dtype0*
shape:

AbsAbsx*
T0
&
BetaincBetaincabAbs*
T0"ª