
1
paramsPlaceholder*
dtype0*
shape:
2
indicesPlaceholder*
dtype0*
shape:
X
GatherGatherparamsindices*
Tindices0*
Tparams0*
validate_indices("ª