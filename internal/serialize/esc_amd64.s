#include "textflag.h"

// The bytes nextEscAVX2 compares with, 32 of each. & (0x26) and ' (0x27)
// differ only in the lowest bit, < (0x3c) and > (0x3e) only in the next.
DATA escOne<>+0(SB)/8, $0x0101010101010101
DATA escOne<>+8(SB)/8, $0x0101010101010101
DATA escOne<>+16(SB)/8, $0x0101010101010101
DATA escOne<>+24(SB)/8, $0x0101010101010101
GLOBL escOne<>(SB), RODATA|NOPTR, $32
DATA escTwo<>+0(SB)/8, $0x0202020202020202
DATA escTwo<>+8(SB)/8, $0x0202020202020202
DATA escTwo<>+16(SB)/8, $0x0202020202020202
DATA escTwo<>+24(SB)/8, $0x0202020202020202
GLOBL escTwo<>(SB), RODATA|NOPTR, $32
DATA escApos<>+0(SB)/8, $0x2727272727272727
DATA escApos<>+8(SB)/8, $0x2727272727272727
DATA escApos<>+16(SB)/8, $0x2727272727272727
DATA escApos<>+24(SB)/8, $0x2727272727272727
GLOBL escApos<>(SB), RODATA|NOPTR, $32
DATA escGt<>+0(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA escGt<>+8(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA escGt<>+16(SB)/8, $0x3e3e3e3e3e3e3e3e
DATA escGt<>+24(SB)/8, $0x3e3e3e3e3e3e3e3e
GLOBL escGt<>(SB), RODATA|NOPTR, $32
DATA escQuot<>+0(SB)/8, $0x2222222222222222
DATA escQuot<>+8(SB)/8, $0x2222222222222222
DATA escQuot<>+16(SB)/8, $0x2222222222222222
DATA escQuot<>+24(SB)/8, $0x2222222222222222
GLOBL escQuot<>(SB), RODATA|NOPTR, $32

// ESCAPED sets BX to the mask of the bytes of Y0 that XML escaping
// replaces: & or ' (Y0|1 == Y3), < or > (Y0|2 == Y4), " (Y5), with Y1 and
// Y2 the ones and twos. It uses Y6 to Y8.
#define ESCAPED \
	VPOR Y1, Y0, Y6; \
	VPCMPEQB Y3, Y6, Y6; \
	VPOR Y2, Y0, Y7; \
	VPCMPEQB Y4, Y7, Y7; \
	VPCMPEQB Y5, Y0, Y8; \
	VPOR Y7, Y6, Y6; \
	VPOR Y8, Y6, Y6; \
	VPMOVMSKB Y6, BX

// func nextEscAVX2(s string, i int) int
//
// nextEsc, 32 bytes a turn: the index of the first byte at or after i
// that is & < > " or ', or len(s). Needs len(s) >= 32 and 0 <= i. The
// last, partial block is read as the last 32 bytes of s, with the flags
// of the bytes before i shifted out.
TEXT ·nextEscAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	MOVQ i+16(FP), AX
	VMOVDQU escOne<>(SB), Y1
	VMOVDQU escTwo<>(SB), Y2
	VMOVDQU escApos<>(SB), Y3
	VMOVDQU escGt<>(SB), Y4
	VMOVDQU escQuot<>(SB), Y5
	MOVQ DX, R8
	SUBQ $32, R8 // the start of the last full block

loop:
	CMPQ AX, R8
	JGT tail
	VMOVDQU (SI)(AX*1), Y0
	ESCAPED
	TESTL BX, BX
	JNZ found
	ADDQ $32, AX
	JMP loop

tail:
	CMPQ AX, DX
	JGE none
	VMOVDQU (SI)(R8*1), Y0
	ESCAPED
	MOVQ AX, CX
	SUBQ R8, CX // the bytes of the block before i, already scanned
	SHRL CX, BX
	TESTL BX, BX
	JZ none

found:
	BSFL BX, CX
	ADDQ CX, AX
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

none:
	VZEROUPPER
	MOVQ DX, ret+24(FP)
	RET
