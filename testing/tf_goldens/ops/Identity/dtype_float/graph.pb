
,
xPlaceholder*
dtype0*
shape:
 
IdentityIdentityx*
T0"ª