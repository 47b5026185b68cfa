//go:build race

package roundtrip

// Under the race detector (ten times slower) the huge lines are a quarter
// of the size: 375 KB still makes a quadratic scan show.
func init() { hugeReps = 1 << 14 }
