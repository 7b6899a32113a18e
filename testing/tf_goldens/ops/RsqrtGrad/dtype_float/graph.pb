
,
yPlaceholder*
dtype0*
shape:
-
dyPlaceholder*
dtype0*
shape:
&
	RsqrtGrad	RsqrtGradydy*
T0"ª