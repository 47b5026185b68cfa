//go:build !unix

package bundle

import "os"

// createFile writes data to a new file at path.
func createFile(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
