
.
in0Placeholder*
dtype0*
shape:
I
StringToHashBucketFastStringToHashBucketFastin0*
num_bucketsè"ª