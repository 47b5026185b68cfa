package extract

import (
	"context"
	"os"
	"path/filepath"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/fsutil"
)

// Output is the output directory of a run that is not Run (the bundles of
// agent sessions, internal/agentbundle), written the way Run writes its
// own: into a hidden staging directory beside the output, renamed into
// place by Commit, removed by Close when not committed.
type Output struct {
	Dir     string // the output directory
	Staging string // where the run writes
	ctx     context.Context
	force   bool
	// removing is called on an interrupt that does not stop a removal.
	removing  func()
	committed bool
}

// OpenOutput refuses a non-empty dir unless force (ErrOutputNotEmpty),
// removes what killed runs left beside it (leftovers, if not nil, is told
// how many and the first error) and creates the staging directory.
func OpenOutput(ctx context.Context, dir string, force bool, leftovers func(int, error), removing func()) (*Output, error) {
	dir = filepath.Clean(dir)
	if err := checkOutDir(dir, force); err != nil {
		return nil, err
	}
	if n, err := CleanStaleStaging(dir); (n > 0 || err != nil) && leftovers != nil {
		leftovers(n, err)
	}
	staging, err := makeStaging(dir)
	if err != nil {
		return nil, err
	}
	return &Output{Dir: dir, Staging: staging, ctx: ctx, force: force, removing: removing}, nil
}

// WriteFile writes data to name (a path under the staging directory),
// creating its directory; files are new, so it never writes over one.
func (o *Output) WriteFile(name string, data []byte) error {
	p := filepath.Join(o.Staging, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return err
	}
	return bundle.WriteNew(filepath.Dir(p), filepath.Base(p), data, true)
}

// Commit renames the staging directory into place (replacing the old
// output as a whole with force).
func (o *Output) Commit() error {
	if err := publish(o.ctx, o.Staging, o.Dir, o.force, o.removing); err != nil {
		return err
	}
	o.committed = true
	return nil
}

// Close removes the staging directory of a run that did not commit (a
// second interrupt stops the removal; the next run removes the rest) and
// drops its hold.
func (o *Output) Close() {
	if !o.committed {
		removeInterruptible(o.ctx, o.Staging, o.removing)
	}
	fsutil.Release(o.Staging)
}
