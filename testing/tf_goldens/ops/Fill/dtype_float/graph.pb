
/
dimsPlaceholder*
dtype0*
shape:
0
valuePlaceholder*
dtype0*
shape:
4
FillFilldimsvalue*
T0*

index_type0"ª