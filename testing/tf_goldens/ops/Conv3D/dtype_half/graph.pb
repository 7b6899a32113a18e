
0
inputPlaceholder*
dtype0*
shape:
1
filterPlaceholder*
dtype0*
shape:

Conv3DConv3Dinputfilter*
T0*
data_formatNDHWC*
	dilations	
*
paddingSAME*
strides	
"ª