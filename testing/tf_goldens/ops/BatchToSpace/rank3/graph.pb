
,
xPlaceholder*
dtype0*
shape:
/
padsPlaceholder*
dtype0*
shape:
L
BatchToSpaceBatchToSpacexpads*

Tidx0*
T0*

block_size"ª