package eval

import (
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
)

// Miner is Mine for many compact histories in a row whose previous
// briefings share sentences: the chained summaries of `compact simulate`,
// where each summary comes back as the previous briefing of the next
// compaction's history and mostly repeats the one before. Mining a long
// previous briefing is mostly the decision heuristic (mdtext.IsDecision) on
// its sentences; a Miner remembers its verdict on each sentence of the last
// previous briefing it mined. Its probes are Mine's (TestMinerIsMine). A
// Miner serves one goroutine at a time; the zero value is ready.
type Miner struct {
	last map[string]bool // sentence → mdtext.IsDecision, of the last previous briefing
}

// Mine is Mine(compactHistory, opt), with the verdicts on the previous
// briefing's sentences remembered for the next call.
func (c *Miner) Mine(compactHistory string, opt Options) []Probe {
	seen := map[string]bool{}
	isDecision := func(sent string) bool {
		d, ok := c.last[sent]
		if !ok {
			d = mdtext.IsDecision(sent)
		}
		// The sentence is a piece of the whole compact history: a
		// copy is kept, not the history.
		seen[strings.Clone(sent)] = d
		return d
	}
	probes := c.mine(compactHistory, opt, isDecision)
	c.last = seen
	return probes
}

// mine is Mine with isDecision judging the previous briefing's sentences.
func (c *Miner) mine(compactHistory string, opt Options, isDecision func(string) bool) []Probe {
	if opt.MaxPerTurn <= 0 {
		opt.MaxPerTurn = 6
	}
	m := newMiner()
	h := mdtext.ParseHistory(compactHistory)
	if h.HasPrevious {
		m.previous(h.Previous, isDecision)
	}
	for i, t := range h.Turns {
		src := Source{Message: i, From: t.Role}
		if t.Role == mdtext.FromUser {
			m.user(t.Text, src, opt)
		} else {
			m.assistant(t.Text, src)
		}
	}
	m.continuation(h)
	return m.result()
}
