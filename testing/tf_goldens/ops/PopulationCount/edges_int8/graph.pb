
,
xPlaceholder*
dtype0*
shape:
.
PopulationCountPopulationCountx*
T0"ª