//go:build !amd64

package serialize

func nextEscAVX2(s string, i int) int { panic("no AVX2 here") }

const haveAVX2 = false
