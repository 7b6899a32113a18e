
/
seedPlaceholder*
dtype0	*
shape:
O
StatelessRandomGetKeyCounterStatelessRandomGetKeyCounterseed*
Tseed0	"ª