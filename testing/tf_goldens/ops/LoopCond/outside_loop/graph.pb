
,
pPlaceholder*
dtype0
*
shape:

LoopCondLoopCondp"ª