package cmd

import (
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
)

// runIn runs compact in-process with args and the environment env, and
// returns the exit status, stdout and stderr.
func runIn(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	code := RunEnv(io, args, func(k string) string { return env[k] })
	return code, out.String(), errOut.String()
}
