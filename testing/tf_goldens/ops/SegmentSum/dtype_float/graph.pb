
/
dataPlaceholder*
dtype0*
shape:
.
idsPlaceholder*
dtype0*
shape:
<

SegmentSum
SegmentSumdataids*
Tindices0*
T0"ª