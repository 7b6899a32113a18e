
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
)
SelectV2SelectV2condte*
T0"ª