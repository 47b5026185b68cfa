// Package fsutil owns the temporary names compact writes its outputs
// under before renaming them into place. Unlike os.MkdirTemp and
// os.CreateTemp, whose 0700 and 0600 would stay with an output once it is
// renamed, they give what any new directory or file gets: 0777 or 0666
// less the user's umask.
package fsutil

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// tries bounds the search for an unused name.
const tries = 100

func tempName(dir, prefix, suffix string) string {
	return filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e10, 10)+suffix)
}

// MkdirTemp creates a new directory in dir named prefix, a random number
// and suffix, with the mode of any new directory.
func MkdirTemp(dir, prefix, suffix string) (string, error) {
	var err error
	for range tries {
		name := tempName(dir, prefix, suffix)
		if err = os.Mkdir(name, 0o777); err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", err
}

// CreateTemp creates and opens a new file in dir named prefix, a random
// number and suffix, with the mode of any new file.
func CreateTemp(dir, prefix, suffix string) (*os.File, error) {
	var err error
	for range tries {
		name := tempName(dir, prefix, suffix)
		f, e := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if e == nil {
			return f, nil
		}
		if err = e; !errors.Is(e, fs.ErrExist) {
			return nil, e
		}
	}
	return nil, err
}
