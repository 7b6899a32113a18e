
/
basePlaceholder*
dtype0*
shape:
.
numPlaceholder*
dtype0*
shape:
-
ShardedFilespecShardedFilespecbasenum"ª