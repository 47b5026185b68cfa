// Package fsutil owns the temporary names compact writes its outputs
// under before renaming them into place. Unlike os.MkdirTemp and
// os.CreateTemp, whose 0700 and 0600 would stay with an output once it is
// renamed, they give what any new directory or file gets: 0777 or 0666
// less the user's umask.
//
// A temporary directory or file is also held: MkdirTemp and CreateTemp
// take an exclusive lock on it, kept until Release or the end of the
// process. The kernel drops the lock when the process dies, however it
// dies, so a leftover of a killed run is one whose lock can be taken;
// CleanStale removes those and leaves the ones a live process holds. The
// lock follows the directory or file through renames and adds nothing to
// it, so nothing extra is renamed into place with the output: on Unix it
// is an flock on the directory or file itself; on Windows, where
// LockFileEx cannot lock a directory, a LockFileEx lock on a hidden lock
// file beside it (.compact-lock-<file id>), named after its file ID so
// that a rename keeps it, and removed on release (see lock_windows.go).
package fsutil

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tries bounds the search for an unused name.
const tries = 100

func tempName(dir, prefix, suffix string) string {
	return filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e10, 10)+suffix)
}

// MkdirTemp creates a new directory in dir named prefix, a random number
// and suffix, with the mode of any new directory, and holds it (see
// Release): CleanStale in this or another process leaves it alone, even
// after it is renamed, for as long as this process lives.
func MkdirTemp(dir, prefix, suffix string) (string, error) {
	var err error
	for range tries {
		name := tempName(dir, prefix, suffix)
		if err = os.Mkdir(name, 0o777); err != nil {
			if !errors.Is(err, fs.ErrExist) {
				return "", err
			}
			continue
		}
		// A cleaner may have found the new directory unheld in the
		// moment before the lock: then it holds it and removes it, or
		// has removed it, and the next name is tried.
		var l lock
		l, err = lockPath(name)
		if err == nil {
			register(name, l)
			return name, nil
		}
		if !errors.Is(err, ErrHeld) && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(name)
			return "", err
		}
	}
	return "", err
}

// Release drops the hold MkdirTemp or CreateTemp took on the directory or
// file it named name (it may have been renamed since, or removed).
// Releasing a name not held does nothing.
func Release(name string) {
	heldMu.Lock()
	l, ok := held[name]
	delete(held, name)
	heldMu.Unlock()
	if ok {
		l.unlock()
	}
}

// Hold takes the lock on an existing directory, as MkdirTemp does on a
// new one: a directory about to be renamed to a temporary name (an
// output being replaced, renamed to <staging>.old while it is removed)
// is then not a leftover to CleanStale. The lock follows the directory
// through renames; release drops it. An error says the directory is held
// by someone else (errors.Is(err, ErrHeld)) or could not be opened;
// release is then a no-op.
func Hold(path string) (release func(), err error) {
	l, err := lockPath(path)
	if err != nil {
		return func() {}, err
	}
	var once sync.Once
	return func() { once.Do(l.unlock) }, nil
}

// lockFilePrefix starts the names of the lock files of the systems where
// a lock lives in a file of its own beside what it holds (Windows).
const lockFilePrefix = ".compact-lock-"

func isLockFile(name string) bool { return strings.HasPrefix(name, lockFilePrefix) }

// ErrHeld reports a directory another process (or another hold of this
// one) holds.
var ErrHeld = errors.New("held by a live process")

var (
	heldMu sync.Mutex
	held   = map[string]lock{}
)

func register(name string, l lock) {
	heldMu.Lock()
	if old, ok := held[name]; ok {
		old.unlock()
	}
	held[name] = l
	heldMu.Unlock()
}

// CleanStale removes the entries of dir whose names start with prefix and
// that no live process holds: leftovers of a run that was killed before
// it could remove its temporary directory or file. It returns how many it
// removed; an entry it could not remove is counted out and its error
// returned (the first one), the others are still tried. A missing dir is
// not an error. Where locks are not available (see Locking) it removes
// nothing: a leftover cannot be told from a live run's directory.
func CleanStale(dir, prefix string) (removed int, err error) {
	if prefix == "" {
		return 0, nil
	}
	return CleanStaleMatch(dir, func(name string) bool { return strings.HasPrefix(name, prefix) })
}

// CleanStaleMatch is CleanStale for the entries whose names match
// reports true for: for a kind of leftover that one prefix does not name
// (the temporary names of an earlier version, say).
func CleanStaleMatch(dir string, match func(name string) bool) (removed int, err error) {
	if !Locking || match == nil {
		return 0, nil
	}
	entries, e := os.ReadDir(dir)
	if e != nil {
		if errors.Is(e, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, e
	}
	for _, ent := range entries {
		if !match(ent.Name()) {
			continue
		}
		t := ent.Type()
		if !t.IsDir() && !t.IsRegular() {
			continue // not something compact makes
		}
		if isLockFile(ent.Name()) {
			continue // swept below, whoever its owner was
		}
		path := filepath.Join(dir, ent.Name())
		ok, e := removeIfStale(path)
		if e != nil {
			if err == nil {
				err = e
			}
			continue
		}
		if ok {
			removed++
		}
	}
	sweepLockFiles(dir, entries)
	return removed, err
}

// removeIfStale takes the lock on path; when it gets it, no live process
// holds path, which it removes while holding the lock (so that two
// cleaners do not remove the same tree).
func removeIfStale(path string) (bool, error) {
	l, err := lockPath(path)
	if err != nil {
		if errors.Is(err, ErrHeld) || errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	defer l.unlock()
	if err := os.RemoveAll(path); err != nil {
		return false, err
	}
	return true, nil
}

// CreateTemp creates and opens a new file in dir named prefix, a random
// number and suffix, with the mode of any new file, and holds it as
// MkdirTemp holds a directory (see Release): CleanStale leaves it alone,
// even after it is renamed, for as long as this process lives.
func CreateTemp(dir, prefix, suffix string) (*os.File, error) {
	var err error
	for range tries {
		name := tempName(dir, prefix, suffix)
		f, e := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if e != nil {
			if err = e; !errors.Is(e, fs.ErrExist) {
				return nil, e
			}
			continue
		}
		// As in MkdirTemp: a cleaner that found the new file unheld
		// holds it or has removed it, and the next name is tried.
		var l lock
		l, err = lockPath(name)
		if err == nil {
			register(name, l)
			return f, nil
		}
		f.Close()
		if !errors.Is(err, ErrHeld) && !errors.Is(err, fs.ErrNotExist) {
			os.Remove(name)
			return nil, err
		}
	}
	return nil, err
}

// PartialPrefix starts the names of the temporary directories an output
// at path is written under before it is renamed into place:
// .<base>.partial-N beside it (and .<base>.partial-N.old for the output it
// replaces while that is removed). The output is the directory itself
// (extract, compress), or a file written inside it and renamed out
// (sample-db). Writers and the cleaners of their leftovers name them
// through this one function.
func PartialPrefix(path string) string { return "." + filepath.Base(path) + ".partial-" }
