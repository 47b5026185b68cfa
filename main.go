// Command compact is a workbench for offline agent-history compression and
// replay. See README.md.
package main

import (
	"os"

	"github.com/compactlab/compact/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
