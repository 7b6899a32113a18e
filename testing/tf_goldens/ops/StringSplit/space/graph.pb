
.
in0Placeholder*
dtype0*
shape:
.
in1Placeholder*
dtype0*
shape:
6
StringSplitStringSplitin0in1*

skip_empty("ª