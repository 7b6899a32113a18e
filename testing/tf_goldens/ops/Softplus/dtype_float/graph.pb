
,
xPlaceholder*
dtype0*
shape:
 
SoftplusSoftplusx*
T0"ª