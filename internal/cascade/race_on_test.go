//go:build race

package cascade

// raceOn: the race detector makes byte loops ten times slower; the
// property tests run fewer cases under it.
const raceOn = true
