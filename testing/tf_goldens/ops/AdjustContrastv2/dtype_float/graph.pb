
1
imagesPlaceholder*
dtype0*
shape:
1
factorPlaceholder*
dtype0*
shape:
=
AdjustContrastv2AdjustContrastv2imagesfactor*
T0"ª