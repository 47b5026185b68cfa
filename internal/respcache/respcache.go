// Package respcache owns the on-disk cache of model responses: one file
// per response, named by a content hash of everything that was sent (the
// caller's key), so that asking the same model the same thing again costs
// nothing. It stores bytes and knows nothing of providers; the cascade
// decides what goes into a key and what a record holds.
//
// Entries are written to a temporary name and renamed into place, so a
// killed run leaves no half-written entry behind (its temporary file is
// removed by the next Prune). Readers never lock: a rename is atomic, and
// two runs writing the same key write the same bytes.
package respcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/fsutil"
)

// MaxEntryBytes bounds an entry read back: a larger file is not an entry
// compact wrote (answers are capped at cascade.max_answer_bytes, 4 MiB by
// default), and is taken as a miss.
const MaxEntryBytes = 256 << 20

// Cache is a directory of responses.
type Cache struct {
	dir string
}

// DefaultDir is where responses are cached when the configuration does
// not say, found from the environment getenv gives:
// $XDG_CACHE_HOME/compact/responses when XDG_CACHE_HOME is an absolute
// path, else the user cache directory under $HOME (~/.cache on Linux and
// the other Unix systems, ~/Library/Caches on macOS) or %LocalAppData% on
// Windows. "" when the environment names none of them: no cache.
func DefaultDir(getenv func(string) string) string {
	if x := getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "compact", "responses")
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("LocalAppData"); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "compact", "responses")
		}
		return ""
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
			return filepath.Join(h, "Library", "Caches", "compact", "responses")
		}
		return ""
	}
	if h := getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "compact", "responses")
	}
	return ""
}

// Open returns the cache in dir, creating it when missing.
func Open(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("response cache: no directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("response cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Key is the hex SHA-256 of parts, each length-prefixed so that no two
// different lists of parts give the same key.
func Key(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func validKey(key string) bool {
	if len(key) < 8 || len(key) > 128 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the entry stored under key. A missing, unreadable or
// oversized entry is a miss.
func (c *Cache) Get(key string) ([]byte, bool) {
	if c == nil || !validKey(key) {
		return nil, false
	}
	// fsutil.OpenInputMax refuses a named pipe or a device before opening
	// it (opening a FIFO planted in the cache would block the run) and
	// an oversized entry before reading it: either is a miss.
	f, err := fsutil.OpenInputMax(c.path(key), MaxEntryBytes)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, false
	}
	return data, true
}

// Put stores data under key: written to a temporary file beside the entry
// and renamed into place.
func (c *Cache) Put(key string, data []byte) error {
	if c == nil {
		return nil
	}
	if !validKey(key) {
		return fmt.Errorf("response cache: invalid key %q", key)
	}
	final := c.path(key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fmt.Errorf("response cache: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(final), tmpPrefix+key[:8]+"-*")
	if err != nil {
		return fmt.Errorf("response cache: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("response cache: %w", err)
	}
	return nil
}

// tmpPrefix starts the names of entries being written.
const tmpPrefix = ".tmp-"

// Stats describes the cache's content.
type Stats struct {
	Dir     string    `json:"dir"`
	Entries int       `json:"entries"`
	Bytes   int64     `json:"bytes"`
	Oldest  time.Time `json:"oldest,omitzero"`
	Newest  time.Time `json:"newest,omitzero"`
}

// Stats counts the entries.
func (c *Cache) Stats() (Stats, error) {
	s := Stats{Dir: c.dir}
	err := c.walk(func(path string, info fs.FileInfo) error {
		s.Entries++
		s.Bytes += info.Size()
		if t := info.ModTime(); s.Oldest.IsZero() || t.Before(s.Oldest) {
			s.Oldest = t
		}
		if t := info.ModTime(); t.After(s.Newest) {
			s.Newest = t
		}
		return nil
	})
	return s, err
}

// Prune removes the entries last written before cutoff (every entry when
// cutoff is the zero time) and any temporary file older than a minute (a
// killed run's), and reports how many entries and bytes went.
func (c *Cache) Prune(cutoff time.Time) (entries int, bytes int64, err error) {
	now := time.Now()
	err = filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, tmpPrefix) {
			if now.Sub(info.ModTime()) > time.Minute {
				os.Remove(path)
			}
			return nil
		}
		if !strings.HasSuffix(name, ".json") {
			return nil
		}
		if cutoff.IsZero() || info.ModTime().Before(cutoff) {
			if err := os.Remove(path); err == nil {
				entries++
				bytes += info.Size()
			}
		}
		return nil
	})
	return entries, bytes, err
}

func (c *Cache) walk(fn func(path string, info fs.FileInfo) error) error {
	return filepath.WalkDir(c.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), tmpPrefix) || !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		return fn(path, info)
	})
}
