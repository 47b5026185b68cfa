package serialize

import (
	"bytes"
	"testing"
)

// nextEscBytes is nextEsc a byte at a time.
func nextEscBytes(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '&', '<', '>', '"', '\'':
			return i
		}
	}
	return len(s)
}

// TestNextEscImplementations: nextEsc (the AVX2 assembly where the CPU has
// it, on texts of 32 bytes or more; the word loop on shorter ones and on
// other CPUs) against a byte loop, from every start, on texts of 0 to 100
// bytes (whole blocks and every size of last, partial block) with one of
// the five bytes, or a byte a bit away from one, at every position,
// behind plain, high and near-miss bytes.
func TestNextEscImplementations(t *testing.T) {
	specials := []byte{'&', '<', '>', '"', '\'', '$', '%', '(', '=', '?', ';', '#', 0xa6, 0xa7, 0xbc, 0xbe, 0xa2}
	fills := []byte{'a', ' ', 0xff, '=', '%'}
	for n := 0; n <= 100; n++ {
		for _, fill := range fills {
			for _, sp := range specials {
				for at := 0; at < max(n, 1); at += 1 + n/30 {
					b := bytes.Repeat([]byte{fill}, n)
					if n > 0 {
						b[at] = sp
					}
					s := string(b)
					for i := 0; i <= n; i++ {
						if got, want := nextEsc(s, i), nextEscBytes(s, i); got != want {
							t.Fatalf("nextEsc(%q, %d) = %d, want %d", s, i, got, want)
						}
					}
				}
			}
		}
	}
}
