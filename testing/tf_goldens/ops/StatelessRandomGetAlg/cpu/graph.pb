
.
StatelessRandomGetAlgStatelessRandomGetAlg"ª