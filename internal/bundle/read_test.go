package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCheckTextRejectsOnlyBlank(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("## A\n\nok"), nil},
		{"blank", []byte(" \n\t\n"), ErrEmpty},
		{"empty", nil, ErrEmpty},
		{"nul", []byte("ab\x00cd"), nil},
		{"only nul", []byte("\x00"), nil},
		{"invalid utf-8", []byte("ab\xff\xfecd"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckText(tc.data)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("CheckText = %v, want %v", err, tc.want)
			}
		})
	}
}

// TestReadTextReadsWhatExtractWrites: a NUL byte (a message can hold one,
// and extract writes it as it is) is kept, bytes that are not UTF-8 read
// as U+FFFD, a blank file is read as it is.
func TestReadTextReadsWhatExtractWrites(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "output.md")
	for _, tc := range []struct{ in, want string }{
		{"## A\x00", "## A\x00"},
		{"ok \xc3", "ok \uFFFD"},
		{"a\xff\xfeb\x1b]0;x\x07", "a\uFFFDb\x1b]0;x\x07"},
	} {
		if err := os.WriteFile(p, []byte(tc.in), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadText(p); err != nil || got != tc.want {
			t.Errorf("ReadText(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	// Blank: a blank briefing in a bundle (diff refuses it as a file
	// given by hand: TestReadLooseRefusesBlank).
	if err := os.WriteFile(p, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(p); err != nil || got != " \n" {
		t.Errorf("ReadText(blank) = %q, %v", got, err)
	}
}
