
/
basePlaceholder*
dtype0*
shape:
0
shardPlaceholder*
dtype0*
shape:
.
numPlaceholder*
dtype0*
shape:
4
ShardedFilenameShardedFilenamebaseshardnum"ª