package cmd

import (
	"github.com/compactlab/compact/internal/briefing"
	"github.com/compactlab/compact/internal/cascade"
)

// wireBuiltin connects the cascade's offline builtin model to the briefing
// writer (internal/briefing), the deterministic baseline.
// The profile chooses how the briefing ends (e3e: "## Current working
// state").
func wireBuiltin(c *cascade.Cascade, profile string) {
	for _, p := range c.Providers {
		if b, ok := p.(*cascade.Builtin); ok {
			b.Writer = func(history string, target int) string {
				return briefing.Write(history, briefing.Options{TargetChars: target, Profile: profile})
			}
		}
	}
}
