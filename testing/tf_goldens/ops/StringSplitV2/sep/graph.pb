
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
A
StringSplitV2StringSplitV2in0in1*
maxsplitÿÿÿÿÿÿÿÿÿ"ª