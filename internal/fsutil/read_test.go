package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLimit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int64
		fail bool
	}{
		{"", 0, false},
		{"abc", 3, false},
		{"abcd", 3, true},
		{strings.Repeat("x", 1<<16), 1 << 16, false},
		{strings.Repeat("x", 1<<16+1), 1 << 16, true},
	} {
		got, err := ReadLimit(strings.NewReader(tc.in), "stdin", tc.max)
		var big *TooLargeError
		if tc.fail {
			if !errors.As(err, &big) || big.Name != "stdin" || big.Max != tc.max {
				t.Errorf("%d bytes, max %d: err %v, want a TooLargeError", len(tc.in), tc.max, err)
			}
			continue
		}
		if err != nil || string(got) != tc.in {
			t.Errorf("%d bytes, max %d: %d bytes, %v", len(tc.in), tc.max, len(got), err)
		}
	}
}

// TestReadFileLimitRefusesBeforeReading: a regular file over the bound is
// refused from its size (a sparse 1 TiB file would take minutes to read),
// an endless device from its kind, and a directory says so.
func TestReadFileLimitRefusesBeforeReading(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	_, err = ReadFileLimit(huge, MaxJSStringBytes)
	var big *TooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), huge) || !strings.Contains(err.Error(), "1.5 GiB") {
		t.Errorf("1 TiB file: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		// An endless device is refused from its stat, before it is opened.
		_, err = ReadFileLimit("/dev/zero", 1<<20)
		var nr *NotRegularError
		if !errors.As(err, &nr) || err.Error() != "/dev/zero is a character device, not a regular file; give the file itself" {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := ReadFileLimit(dir, 10); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("hello"), 0o666)
	if got, err := ReadFileLimit(small, 5); err != nil || string(got) != "hello" {
		t.Errorf("small: %q %v", got, err)
	}
}
