package cmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/prompt"
)

// Every path a command reads is checked the same way before anything is
// opened: a named pipe, a socket or a device is refused at once, with
// one line naming the path and what it is, exit 2. Opening a named pipe
// blocks until something writes to it, which used to leave a command
// hanging; the readers refuse one too (fsutil.OpenInput,
// fsutil.ReadFileLimit), and the checks here make the refusal an exit 2
// before any work, whichever file of a bundle or pack it is.

// notRegular is err as a usage error when it says a path is a named
// pipe, a socket or a device; nil otherwise.
func notRegular(err error) error {
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		return usageErr("%v", nr)
	}
	return nil
}

// checkFileArg checks a path given as a file to read. A special file is a
// usage error; a missing path or a directory is left to the reader, which
// says so in its own words.
func checkFileArg(path string) error {
	_, err := fsutil.CheckInput(path)
	return notRegular(err)
}

// checkDirArg checks a path given as a directory (of bundles, sessions,
// a pack): a special file is a usage error saying a directory is wanted.
func checkDirArg(path, want string) error {
	_, err := fsutil.CheckInput(path)
	var nr *fsutil.NotRegularError
	if errors.As(err, &nr) {
		return usageErr("%s is %s, not a directory; pass %s", path, nr.Kind, want)
	}
	return nil
}

// checkTree refuses a special file anywhere under dir, hidden names (a
// run's temporary files and state) aside: for the directories a command
// reads whole, a bundle with its replays and judge records, a batch
// run's state. A symbolic link is followed to what it names.
func checkTree(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil // the reader says what is wrong with it
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			mode = st.Mode().Type()
		}
		switch {
		case mode.IsDir():
			if err := checkTree(p); err != nil {
				return err
			}
		case !mode.IsRegular():
			return usageErr("%v", &fsutil.NotRegularError{Path: p, Kind: fsutil.FileKind(mode)})
		}
	}
	return nil
}

// checkBundles checks every file of the bundles (checkTree).
func checkBundles(dirs []string) error {
	for _, d := range dirs {
		if err := checkTree(d); err != nil {
			return err
		}
	}
	return nil
}

// resolvePack is prompt.Resolve with the pack directory's files checked
// first; flag names the flag for the error ("--pack").
func resolvePack(flag, spec string) (*prompt.Pack, error) {
	if isPackDir(spec) {
		if err := checkDirArg(spec, "a prompt pack directory (written by compact prompt import) or a built-in pack name"); err != nil {
			return nil, usageErr("%s: %v", flag, err)
		}
		for _, name := range []string{prompt.SystemPromptFile, prompt.PackFile} {
			if err := checkFileArg(filepath.Join(spec, name)); err != nil {
				return nil, usageErr("%s: %v", flag, err)
			}
		}
	}
	p, err := prompt.Resolve(spec)
	if err != nil {
		return nil, usageErr("%s: %v", flag, err)
	}
	return p, nil
}

// isPackDir reports whether prompt.Resolve reads spec from the disk (it
// is not the name of a built-in pack).
func isPackDir(spec string) bool {
	if spec == "" {
		return false
	}
	if strings.ContainsAny(spec, `/\`) {
		return true
	}
	for _, n := range prompt.BuiltinNames() {
		if n == spec {
			return false
		}
	}
	return true
}

// checkSkillsDir checks --skills-dir DIR: each DIR/skills/*/SKILL.md and
// DIR/plugins/*/SKILL.md that would be read (internal/serialize).
func checkSkillsDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := checkDirArg(dir, "the directory holding skills/ and plugins/"); err != nil {
		return usageErr("--skills-dir: %v", err)
	}
	for _, kind := range []string{"skills", "plugins"} {
		ents, err := os.ReadDir(filepath.Join(dir, kind))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if err := checkFileArg(filepath.Join(dir, kind, e.Name(), "SKILL.md")); err != nil {
				return usageErr("--skills-dir: %v", err)
			}
		}
	}
	return nil
}
