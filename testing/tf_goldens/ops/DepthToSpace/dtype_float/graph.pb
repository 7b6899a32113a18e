
,
xPlaceholder*
dtype0*
shape:
Q
DepthToSpaceDepthToSpacex*
T0*

block_size*
data_formatNHWC"ª