//go:build !race

package cascade

const raceOn = false
