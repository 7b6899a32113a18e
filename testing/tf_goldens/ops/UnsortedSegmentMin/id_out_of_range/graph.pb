
/
dataPlaceholder*
dtype0*
shape:
.
idsPlaceholder*
dtype0*
shape:
.
numPlaceholder*
dtype0*
shape:
e
UnsortedSegmentMinUnsortedSegmentMindataidsnum*
Tindices0*
Tnumsegments0*
T0"ª