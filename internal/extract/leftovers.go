package extract

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/compactlab/compact/internal/fsutil"
)

// CleanStaleStaging removes what killed runs left beside outDir — their
// staging directories, .<out>.partial-N, and the outputs they were
// replacing, .<out>.partial-N.old — unless a live process holds them (a
// run writing the same output now). It returns how many it removed and
// the first error; it goes on past errors. Without locks (see
// fsutil.Locking) it removes nothing.
func CleanStaleStaging(outDir string) (int, error) {
	outDir = filepath.Clean(outDir) // "out/" is out, beside which staging goes
	return fsutil.CleanStale(filepath.Dir(outDir), fsutil.PartialPrefix(outDir))
}

// removeInterruptible removes path (a staging directory after a failed or
// interrupted run, or the output a --force run replaced) where an
// interrupt already stopped the run or may come during the removal: the
// removal goes on past one interrupt, a second stops it. first, if not
// nil, is called on an interrupt that does not stop it. A stopped removal
// is not an error: stopped says so, and the next run's CleanStaleStaging
// removes the rest (path is no longer held once the process ends).
func removeInterruptible(ctx context.Context, path string, first func()) (stopped bool, err error) {
	rmCtx, cancel := fsutil.StopOnSecondInterrupt(ctx, first)
	defer cancel()
	err = removeAllCtx(rmCtx, path)
	if err != nil && rmCtx.Err() != nil && errors.Is(err, context.Canceled) {
		return true, nil
	}
	return false, err
}

// removeAllCtx is fsutil.RemoveAllCtx (tests slow it down).
var removeAllCtx = fsutil.RemoveAllCtx
