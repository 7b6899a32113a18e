
,
xPlaceholder*
dtype0*
shape:
,
kPlaceholder*
dtype0*
shape:
I
TopKV2TopKV2xk*
Tk0*
T0*

index_type0*
sorted("ª