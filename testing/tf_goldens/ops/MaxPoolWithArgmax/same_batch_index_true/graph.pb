
,
xPlaceholder*
dtype0*
shape:
š
MaxPoolWithArgmaxMaxPoolWithArgmaxx*
Targmax0	*
T0*
include_batch_in_index(*
ksize
*
paddingSAME*
strides
"ª