package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Kind is what makes a directory a bundle to a Finder.
type Kind int

const (
	// Readable is a bundle diff, eval and report read: a directory that
	// holds the app's briefing, the compact history or the metadata.
	Readable Kind = iota
	// Replayable is a bundle replay can send: a directory that holds the
	// system prompt, the user message and the metadata.
	Replayable
)

// Is reports whether dir is a bundle of kind k. Any file but a directory
// counts: a named pipe in a file's place makes a bundle that its readers
// refuse, naming it, rather than a directory passed over in silence.
func (k Kind) Is(dir string) bool {
	if k == Replayable {
		return hasFiles(dir, true, FileSystemPrompt, FileUserMessage, FileMetadata)
	}
	return hasFiles(dir, false, FileActual, FileCompact, FileMetadata)
}

// hasFiles reports whether dir holds every one of names (all) or any.
func hasFiles(dir string, all bool, names ...string) bool {
	for _, f := range names {
		st, err := os.Stat(filepath.Join(dir, f))
		if has := err == nil && !st.IsDir(); has != all {
			return has
		}
	}
	return all
}

// A Finder finds the bundles of its Kind at or under paths (a bundle, a
// chat directory, a channel directory, or anything above). Bundles do not
// nest; replays directories and directories whose names start with '.'
// are not searched (a path given is, whatever its name).
type Finder struct {
	Kind Kind
	// NotDir is what the error for a path that is not a directory
	// suggests, in brackets after it ("" for nothing).
	NotDir string
}

// Walk calls fn with every bundle at or under paths, one at a time, each
// directory's entries in name order: the list is never held. A bundle
// under two of the paths comes once. An error of fn stops the walk and is
// returned.
func (f Finder) Walk(paths []string, fn func(bundle string) error) error {
	var seen map[string]bool
	if len(paths) > 1 {
		seen = map[string]bool{}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			if f.NotDir == "" {
				return fmt.Errorf("%s is not a directory", p)
			}
			return fmt.Errorf("%s is not a directory (%s)", p, f.NotDir)
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if name := d.Name(); path != p && (name == DirReplays || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			if !f.Kind.Is(path) {
				return nil
			}
			if seen != nil {
				abs, err := filepath.Abs(path)
				if err != nil || seen[abs] {
					return filepath.SkipDir
				}
				seen[abs] = true
			}
			if err := fn(path); err != nil {
				return err
			}
			return filepath.SkipDir
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Find lists the bundles Walk finds, sorted. On an error it returns it
// with the bundles found before it (sorted too).
func (f Finder) Find(paths []string) ([]string, error) {
	var out []string
	err := f.Walk(paths, func(b string) error {
		out = append(out, b)
		return nil
	})
	sort.Strings(out)
	return out, err
}
