
-
dyPlaceholder*
dtype0*
shape:
>
BiasAddGradBiasAddGraddy*
T0*
data_formatNHWC"ª