#include "textflag.h"

// func prefetch(p unsafe.Pointer) uint64
TEXT ·prefetch(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ $0, ret+8(FP)
	RET
