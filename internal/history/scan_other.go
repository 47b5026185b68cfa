//go:build !amd64

package history

func scanPlainAVX2(s string, i int) (int, bool) { panic("no AVX2 here") }

func checkStringAVX2(s string, i int) (int, int) { panic("no AVX2 here") }

const haveAVX2 = false
