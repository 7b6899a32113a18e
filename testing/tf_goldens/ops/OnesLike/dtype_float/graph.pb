
,
xPlaceholder*
dtype0*
shape:
 
OnesLikeOnesLikex*
T0"ª