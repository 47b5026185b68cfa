#include "textflag.h"

// The bytes scanPlainAVX2 compares with, 32 of each.
DATA quote32<>+0(SB)/8, $0x2222222222222222
DATA quote32<>+8(SB)/8, $0x2222222222222222
DATA quote32<>+16(SB)/8, $0x2222222222222222
DATA quote32<>+24(SB)/8, $0x2222222222222222
GLOBL quote32<>(SB), RODATA|NOPTR, $32
DATA bslash32<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+16(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA bslash32<>+24(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL bslash32<>(SB), RODATA|NOPTR, $32
DATA ctl32<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA ctl32<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA ctl32<>+16(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA ctl32<>+24(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL ctl32<>(SB), RODATA|NOPTR, $32

// SPECIALS sets BX to the mask of the bytes of Y0 that are '"' (Y1),
// '\\' (Y2) or at most 0x1f (Y3), the bytes a JSON string's plain run
// stops at. It uses Y4 to Y6.
#define SPECIALS \
	VPCMPEQB Y1, Y0, Y4; \
	VPCMPEQB Y2, Y0, Y5; \
	VPMINUB Y3, Y0, Y6; \
	VPCMPEQB Y6, Y0, Y6; \
	VPOR Y5, Y4, Y4; \
	VPOR Y6, Y4, Y4; \
	VPMOVMSKB Y4, BX

// func scanPlainAVX2(s string, i int) (end int, high bool)
//
// scanPlain, 32 bytes a turn: end is the index of the first byte at or
// after i that is '"', '\\' or below 0x20, or len(s); high is whether a
// byte of s[i:end] is 0x80 or above. Needs len(s) >= 32 and
// 0 <= i <= len(s). The last, partial block is read as the last 32 bytes
// of s, with the flags of the bytes before i shifted out.
TEXT ·scanPlainAVX2(SB), NOSPLIT, $0-33
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	MOVQ i+16(FP), AX
	XORQ R10, R10 // the high bits seen
	VMOVDQU quote32<>(SB), Y1
	VMOVDQU bslash32<>(SB), Y2
	VMOVDQU ctl32<>(SB), Y3
	MOVQ DX, R8
	SUBQ $32, R8 // the start of the last full block
	CMPQ AX, R8
	JGT tail

loop:
	VMOVDQU (SI)(AX*1), Y0
	SPECIALS
	VPMOVMSKB Y0, R9 // >= 0x80
	TESTL BX, BX
	JNZ found
	ORL R9, R10
	ADDQ $32, AX
	CMPQ AX, R8
	JLE loop

tail:
	CMPQ AX, DX
	JGE end
	VMOVDQU (SI)(R8*1), Y0
	SPECIALS
	VPMOVMSKB Y0, R9
	MOVQ AX, CX
	SUBQ R8, CX // the bytes of the block before i, already scanned
	SHRL CX, BX
	SHRL CX, R9
	TESTL BX, BX
	JNZ found
	ORL R9, R10
	JMP end

found:
	// BX flags the special bytes, from the block's (or i's) first byte;
	// R9 the high ones. Only those before the first special count.
	BSFL BX, CX
	ADDQ CX, AX
	MOVQ $1, R11
	SHLQ CX, R11
	DECQ R11
	ANDQ R11, R9
	ORL R9, R10
	VZEROUPPER
	MOVQ AX, end+24(FP)
	TESTL R10, R10
	SETNE high+32(FP)
	RET

end:
	VZEROUPPER
	MOVQ DX, end+24(FP)
	TESTL R10, R10
	SETNE high+32(FP)
	RET

// func checkStringAVX2(s string, i int) (end int, st int)
//
// checkString's loop, 32 bytes a turn, from i (just past the opening
// quote): st 0 when the string is valid up to its closing quote (end is
// the index after it), 1 when it is not (a control byte, a bad escape, no
// closing quote; end is -1), 2 at a \u escape (end is the index of its
// backslash), whose four hex digits the caller checks before going on
// at end+6. Needs len(s) >= 32 and 0 <= i. The last, partial block is
// read as the last 32 bytes of s, with the flags of the bytes before i
// shifted out.
TEXT ·checkStringAVX2(SB), NOSPLIT, $0-40
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	MOVQ i+16(FP), AX
	VMOVDQU quote32<>(SB), Y1
	VMOVDQU bslash32<>(SB), Y2
	VMOVDQU ctl32<>(SB), Y3
	MOVQ DX, R8
	SUBQ $32, R8 // the start of the last full block

next:
	CMPQ AX, R8
	JGT ctail
	VMOVDQU (SI)(AX*1), Y0
	SPECIALS
	TESTL BX, BX
	JNZ cfound
	ADDQ $32, AX
	JMP next

ctail:
	CMPQ AX, DX
	JGE cbad // no closing quote
	VMOVDQU (SI)(R8*1), Y0
	SPECIALS
	MOVQ AX, CX
	SUBQ R8, CX // the bytes of the block before i, already checked
	SHRL CX, BX
	TESTL BX, BX
	JZ cbad // no closing quote

cfound:
	BSFL BX, CX
	ADDQ CX, AX // AX: the special byte
	MOVBLZX (SI)(AX*1), CX
	CMPB CX, $0x22
	JEQ cquote
	CMPB CX, $0x5c
	JNE cbad // a control byte
	LEAQ 1(AX), R9
	CMPQ R9, DX
	JGE cbad // a backslash at the end
	MOVBLZX (SI)(R9*1), CX
	CMPB CX, $0x6e // n
	JEQ cesc
	CMPB CX, $0x22 // "
	JEQ cesc
	CMPB CX, $0x5c // \\
	JEQ cesc
	CMPB CX, $0x74 // t
	JEQ cesc
	CMPB CX, $0x72 // r
	JEQ cesc
	CMPB CX, $0x2f // /
	JEQ cesc
	CMPB CX, $0x62 // b
	JEQ cesc
	CMPB CX, $0x66 // f
	JEQ cesc
	CMPB CX, $0x75 // u
	JEQ cuesc
	JMP cbad

cesc:
	ADDQ $2, AX
	JMP next

cquote:
	INCQ AX
	VZEROUPPER
	MOVQ AX, end+24(FP)
	MOVQ $0, st+32(FP)
	RET

cuesc:
	VZEROUPPER
	MOVQ AX, end+24(FP)
	MOVQ $2, st+32(FP)
	RET

cbad:
	VZEROUPPER
	MOVQ $-1, end+24(FP)
	MOVQ $1, st+32(FP)
	RET
