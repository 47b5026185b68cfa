//go:build !race

package mdtext

const raceEnabled = false
