//go:build !race

package briefing

const raceEnabled = false
