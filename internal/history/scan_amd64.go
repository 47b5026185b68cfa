package history

import "golang.org/x/sys/cpu"

// scanPlainAVX2 is scanPlain in assembly, 32 bytes a turn, for
// len(s) >= 32 and 0 <= i <= len(s); high is whether s[i:end] holds a
// byte >= 0x80. See scan_amd64.s.
//
//go:noescape
func scanPlainAVX2(s string, i int) (end int, high bool)

// checkStringAVX2 is checkString's loop in assembly, 32 bytes a turn, for
// len(s) >= 32 and 0 <= i: st 0 with end past the closing quote, 1 for an
// invalid string, 2 at a \u escape (end: its backslash) for the caller to
// check. See scan_amd64.s.
//
//go:noescape
func checkStringAVX2(s string, i int) (end, st int)

// haveAVX2 is whether the CPU (and the OS, which must save the wide
// registers) supports AVX2.
var haveAVX2 = cpu.X86.HasAVX2
