package briefing

// RaceEnabled tells the external tests whether the race detector is on, to
// size their work down.
const RaceEnabled = raceEnabled
