package serialize

import "testing"

// TestWithoutAVX2 checks the word loop, which CPUs without AVX2 (and other
// architectures) use, on this one too, with the serializer's golden
// vectors.
func TestWithoutAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this machine: the other tests already run without it")
	}
	haveAVX2 = false
	defer func() { haveAVX2 = true }()
	t.Run("NextEscImplementations", TestNextEscImplementations)
	t.Run("EscWords", TestEscWords)
	t.Run("MatchesUpstreamVectors", TestSerializeMatchesUpstreamVectors)
}
