
,
xPlaceholder*
dtype0*
shape:
,
nPlaceholder*
dtype0*
shape:
6

NthElement
NthElementxn*
T0*
reverse("ª