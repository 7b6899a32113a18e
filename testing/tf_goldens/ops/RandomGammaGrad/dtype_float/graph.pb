
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
5
RandomGammaGradRandomGammaGradin0in1*
T0"ª