package cmd

import (
	"fmt"
	"os"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/serialize"
)

func init() {
	// internal/serialize writes its few warnings to the process's stderr
	// itself; they are escaped as everything else written there
	// (iostreams.IO.ErrOut).
	serialize.Warn = func(msg string) { fmt.Fprintln(os.Stderr, "compact: warning: "+iostreams.Escape(msg)) }
}
