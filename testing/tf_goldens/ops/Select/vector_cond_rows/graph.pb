
/
condPlaceholder*
dtype0
*
shape:
,
tPlaceholder*
dtype0*
shape:
,
ePlaceholder*
dtype0*
shape:
%
SelectSelectcondte*
T0"ª