
/
seedPlaceholder*
dtype0	*
shape:
U
StatelessRandomGetKeyCounterAlgStatelessRandomGetKeyCounterAlgseed*
Tseed0	"ª