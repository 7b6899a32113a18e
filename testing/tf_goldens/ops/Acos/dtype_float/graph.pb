
,
xPlaceholder*
dtype0*
shape:

AcosAcosx*
T0"ª