package history

import "testing"

// TestWithoutAVX2 runs the string tests and the superjson golden file
// again with the AVX2 scan switched off, so that the word loops amd64
// machines without AVX2 (and other architectures) use stay checked here
// too.
func TestWithoutAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this machine: the other tests already run without it")
	}
	haveAVX2 = false
	defer func() { haveAVX2 = true }()
	t.Run("CheckStringWords", TestCheckStringWords)
	t.Run("CheckStringRandom", TestCheckStringRandom)
	t.Run("StrValidatesUTF8AtEveryOffset", TestStrValidatesUTF8AtEveryOffset)
	t.Run("InvalidUTF8DecodesAsNodeDoes", TestInvalidUTF8DecodesAsNodeDoes)
	t.Run("SuperJSONMatchesNode", TestSuperJSONMatchesNode)
	t.Run("LazySameAsEager", TestLazySameAsEager)
	t.Run("ScanSimpleValues", TestScanSimpleValues)
}
