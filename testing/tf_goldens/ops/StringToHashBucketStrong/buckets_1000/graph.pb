
.
in0Placeholder*
dtype0*
shape:
\
StringToHashBucketStrongStringToHashBucketStrongin0*
key
**
num_bucketsè"ª