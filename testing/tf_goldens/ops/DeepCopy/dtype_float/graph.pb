
,
xPlaceholder*
dtype0*
shape:
 
DeepCopyDeepCopyx*
T0"ª