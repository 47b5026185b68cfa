package cmd

import (
	"fmt"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
)

// progress draws one status line on a terminal's stderr, at most ten times
// a second; it draws nothing when stderr is not a terminal or with --quiet.
type progress struct {
	io    *iostreams.IO
	on    bool
	last  time.Time
	shown bool
}

func newProgress(io *iostreams.IO) *progress {
	return &progress{io: io, on: io.ShowProgress()}
}

func (p *progress) show(format string, a ...any) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	// The line's own control sequences go to the terminal as they are;
	// what fills it is escaped, as everything else on stderr.
	fmt.Fprint(p.io.ProgressOut(), "\r\033[K"+iostreams.Escape(fmt.Sprintf(format, a...)))
	p.shown = true
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.io.ProgressOut(), "\r\033[K")
		p.shown = false
	}
}
