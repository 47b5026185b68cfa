package serialize

import "golang.org/x/sys/cpu"

// nextEscAVX2 is nextEsc in assembly, 32 bytes a turn, for len(s) >= 32
// and 0 <= i. See esc_amd64.s.
//
//go:noescape
func nextEscAVX2(s string, i int) int

// haveAVX2 is whether the CPU (and the OS, which must save the wide
// registers) supports AVX2.
var haveAVX2 = cpu.X86.HasAVX2
