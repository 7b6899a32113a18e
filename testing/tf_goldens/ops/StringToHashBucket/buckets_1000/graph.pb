
.
in0Placeholder*
dtype0*
shape:
A
StringToHashBucketStringToHashBucketin0*
num_bucketsè"ª