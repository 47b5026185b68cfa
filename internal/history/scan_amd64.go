package history

import "golang.org/x/sys/cpu"

// scanPlainAVX2 is scanPlain in assembly, 32 bytes a turn, for
// len(s) >= 32 and 0 <= i <= len(s); high is whether s[i:end] holds a
// byte >= 0x80. See scan_amd64.s.
//
//go:noescape
func scanPlainAVX2(s string, i int) (end int, high bool)

// haveAVX2 is whether the CPU (and the OS, which must save the wide
// registers) supports AVX2.
var haveAVX2 = cpu.X86.HasAVX2
