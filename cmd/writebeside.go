package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/compactlab/compact/internal/fsutil"
)

// writeBeside writes the file at path whole or not at all, for command
// (what stderr names) and its option (what an error names, "eval:
// --otel"): the leftovers of an interrupted run beside path are removed,
// write fills a temporary file beside it, which is renamed into place.
// An *ExitError from write is returned as it is.
func writeBeside(f *Factory, command, option, path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if n, err := fsutil.CleanStale(dir, fsutil.PartialPrefix(path)); n > 0 {
		fmt.Fprintf(f.IO.ErrOut, "compact %s: removed %s of an interrupted run beside %s\n", command, plural(n, "leftover"), path)
	} else if err != nil {
		fmt.Fprintf(f.IO.ErrOut, "compact %s: warning: leftovers of an interrupted run: %v\n", command, err)
	}
	tmp, err := fsutil.CreateTemp(dir, fsutil.PartialPrefix(path), "")
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("%s: cannot write beside %s: %w", option, path, err)}
	}
	name := tmp.Name()
	defer fsutil.Release(name)
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
		var ee *ExitError
		if errors.As(err, &ee) {
			return err
		}
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("%s: writing %s: %w", option, path, err)}
	}
	return nil
}
