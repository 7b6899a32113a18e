
.
in0Placeholder*
dtype0
*
shape:


LogicalNot
LogicalNotin0"ª