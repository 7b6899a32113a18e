
,
xPlaceholder*
dtype0*
shape:
A
triggerControlTrigger*&
 _has_manual_control_dependencies(
*
IdentityIdentityx^trigger*
T0"ª