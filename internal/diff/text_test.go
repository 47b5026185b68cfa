package diff

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentencesSplitsProseAndSkipsHeadings(t *testing.T) {
	text := "## Topic\n\nYou read [](path:w1/a.ts). Then you fixed it, e.g. the import!\n" +
		"It was wrapped\nover two lines. Is it done? yes it is.\n\n" +
		"- a bullet. Two\n| a | b |\n"
	got := Sentences(text)
	want := []string{
		"You read [](path:w1/a.ts).",
		"Then you fixed it, e.g. the import!",
		"It was wrapped over two lines.",
		"Is it done? yes it is.",
		"- a bullet.", "Two",
		"| a | b |",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Sentences (-want +got):\n%s", d)
	}
}

func TestContentWordsStemsAndDropsStopWords(t *testing.T) {
	got := ContentWords("You changed the Changes; the user's change was tested.")
	want := []string{"chang", "test"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ContentWords (-want +got):\n%s", d)
	}
}

func TestCheckTextRejectsBinaryAndEmpty(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("## A\n\nok"), nil},
		{"blank", []byte(" \n\t\n"), ErrEmpty},
		{"empty", nil, ErrEmpty},
		{"nul", []byte("ab\x00cd"), ErrNotText},
		{"invalid utf-8", []byte("ab\xff\xfecd"), ErrNotText},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckText(tc.data)
			if !errors.Is(err, tc.want) {
				t.Fatalf("CheckText = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestReadTextNamesTheFileAndTheOffset(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "output.md")
	if err := os.WriteFile(p, []byte("## A\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadText(p)
	if !errors.Is(err, ErrNotText) {
		t.Fatalf("ReadText = %v, want ErrNotText", err)
	}
	if want := p + " is not text (NUL byte at offset 4)"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	if err := os.WriteFile(p, []byte("ok \xc3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadText(p); err == nil || err.Error() != p+" is not text (invalid UTF-8 at offset 3)" {
		t.Errorf("ReadText = %v", err)
	}
}
