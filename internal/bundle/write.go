package bundle

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
)

// WriteNew writes data to the new file dir/name, as Node writes a string:
// lone surrogates become U+FFFD. mayLone false says data holds none. It
// is the writer of every file of an extraction (into a staging directory
// renamed into place as a whole), so it costs no more than the system
// calls that create the file (see createFile).
func WriteNew(dir, name string, data []byte, mayLone bool) error {
	if mayLone && bytes.IndexByte(data, 0xED) >= 0 && history.HasLoneSurrogate(string(data)) {
		data = []byte(history.ToWellFormed(string(data)))
	}
	return createFile(filepath.Join(dir, name), data)
}

// RunTempPrefix starts the names of run's temporary directories in a
// bundle's replays/: .<run>.tmp-N while written, .<run>.tmp-N.old for the
// result it replaces while that is removed.
func RunTempPrefix(run string) string { return "." + run + ".tmp-" }

// WriteRun writes <bundle>/replays/<run>/ through a temporary directory
// and a rename, so that a reader sees the old result or the new one, never
// a mix: the record (replay.json) and, when answered, the answer
// (output.md).
func WriteRun(bundle, run string, record []byte, answered bool, output []byte) error {
	dir := filepath.Join(bundle, DirReplays)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := fsutil.MkdirTemp(dir, RunTempPrefix(run), "")
	if err != nil {
		return err
	}
	// Held until it is renamed or removed: a leftover to no other run.
	defer fsutil.Release(tmp)
	defer os.RemoveAll(tmp)
	if answered {
		if err := os.WriteFile(filepath.Join(tmp, FileOutput), output, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, FileRecord), record, 0o644); err != nil {
		return err
	}
	final := filepath.Join(dir, run)
	if _, err := os.Lstat(final); err == nil {
		old := tmp + ".old"
		// The previous result is held while it is renamed and removed,
		// so another run does not take <tmp>.old for a leftover.
		release, _ := fsutil.Hold(final)
		defer release()
		if err := os.Rename(final, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, final); err != nil {
			_ = os.Rename(old, final)
			return err
		}
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, final)
}

// CleanRunLeftovers removes, in each bundle's replays/ directory, what a
// killed writer of the same run left there (.<run>.tmp-N directories and
// .<run>.tmp-N.old ones) and no live process holds. It returns how many
// it removed and the first error; it goes on past errors.
func CleanRunLeftovers(bundles []string, run string) (int, error) {
	if run == "" {
		return 0, nil
	}
	return cleanEach(bundles, DirReplays, RunTempPrefix(run))
}

// judgeTempPrefix starts the temporary names of the judge's record of
// run while it is written.
func judgeTempPrefix(run string) string { return "." + run + ".json." }

// WriteJudgeRecord writes data to <bundle>/judge/<run>.json through a
// temporary file and a rename.
func WriteJudgeRecord(bundle, run string, data []byte) error {
	dir := filepath.Join(bundle, DirJudge)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := fsutil.CreateTemp(dir, judgeTempPrefix(run), ".tmp")
	if err != nil {
		return err
	}
	defer fsutil.Release(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), JudgePath(bundle, run))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// CleanJudgeLeftovers removes, in each bundle's judge/ directory, what a
// killed writer of run's record left there and no live process holds. It
// returns how many it removed and the first error; it goes on past
// errors.
func CleanJudgeLeftovers(bundles []string, run string) (int, error) {
	return cleanEach(bundles, DirJudge, judgeTempPrefix(run))
}

// cleanEach is fsutil.CleanStale(prefix) in each bundle's sub directory.
func cleanEach(bundles []string, sub, prefix string) (int, error) {
	total := 0
	var first error
	for _, b := range bundles {
		n, err := fsutil.CleanStale(filepath.Join(b, sub), prefix)
		total += n
		if err != nil && first == nil {
			first = err
		}
	}
	return total, first
}
