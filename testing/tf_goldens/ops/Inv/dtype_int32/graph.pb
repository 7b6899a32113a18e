
,
xPlaceholder*
dtype0*
shape:

InvInvx*
T0"ª