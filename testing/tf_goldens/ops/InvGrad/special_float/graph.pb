
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
%
InvGradInvGradin0in1*
T0"ª