//go:build race

package strategy

const raceEnabled = true
