
,
xPlaceholder*
dtype0*
shape:
 
IsFiniteIsFinitex*
T0"ª