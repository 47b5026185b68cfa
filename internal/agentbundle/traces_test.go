package agentbundle

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/prompt"
)

func readBundleFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestOTelBundles: a trace file's conversations are chats of their own;
// each compaction is a bundle whose actual-output.md is the summary byte
// for byte, whose compact history holds the conversation before it (less
// the messages the compacted view kept, after the previous summary) and
// whose continuation holds what came after it; the metadata names the
// trace, the conversation and the recorded tokens.
func TestOTelBundles(t *testing.T) {
	f := filepath.Join(testdata, "otel", "genai-compaction.jsonl")
	sum, out, warns := run(t, agents.OTel, f)
	if sum.Sessions != 2 || sum.Bundles != 2 || sum.Extracted != 1 || sum.Unauditable != 0 || len(warns) != 0 {
		t.Fatalf("summary %+v, warnings %q", sum, warns)
	}
	file, err := agents.ReadOTelFile(f)
	if err != nil {
		t.Fatal(err)
	}
	s := file.Sessions[0]
	chat := filepath.Join(out, sum.PerSession[0].Directory)
	b1, b2 := filepath.Join(chat, bundle.CompressionDirName(1)), filepath.Join(chat, bundle.CompressionDirName(2))
	if got := readBundleFile(t, b1, bundle.FileActual); got != s.Compactions[0].Summary {
		t.Errorf("actual-output.md %q", got)
	}
	if got := readBundleFile(t, b2, bundle.FileActual); got != s.Compactions[1].Summary {
		t.Errorf("second actual-output.md %q", got)
	}
	h1 := readBundleFile(t, b1, bundle.FileCompact)
	for _, want := range []string{"<user>The checkout test fails", "[read: src/tax.ts]", "[shell: npm test → exit 1]", "[edited: src/tax.ts]", "[shell: npm test → ✓]", "npm test passes (12 tests)"} {
		if !strings.Contains(h1, want) {
			t.Errorf("compact history 1 lacks %q:\n%s", want, h1)
		}
	}
	// The turn the compacted view kept is not in the history it replaced.
	if strings.Contains(h1, "formatMoney") || strings.Contains(h1, "<previous-chat-history>") {
		t.Errorf("compact history 1 holds the kept turn or a previous summary:\n%s", h1)
	}
	c1 := readBundleFile(t, b1, bundle.FileContinuation)
	if !strings.Contains(c1, "[edited: src/cart.ts]") || !strings.Contains(c1, "Tests: 13 passed") || strings.Contains(c1, "docs/money.md documents") {
		t.Errorf("continuation 1:\n%s", c1)
	}
	h2 := readBundleFile(t, b2, bundle.FileCompact)
	if !strings.HasPrefix(h2, "<previous-chat-history>## Task\nFix the checkout tax bug") || !strings.Contains(h2, "[edited: src/cart.ts]") || strings.Contains(h2, "docs/money.md") {
		t.Errorf("compact history 2:\n%s", h2)
	}
	if c2 := readBundleFile(t, b2, bundle.FileContinuation); !strings.Contains(c2, "docs/money.md documents formatMoney") {
		t.Errorf("continuation 2:\n%s", c2)
	}
	md := readMeta(t, b1)
	for k, want := range map[string]any{"agent": "otel", "chatId": "conv_shop_7f3a", "session": "conv_shop_7f3a", "boundaryLine": 3.0,
		"recordedPreTokens": 2400.0, "recordedPostTokens": 900.0, "preservedMessages": 2.0, "auditable": true, "pack": prompt.DefaultPackName} {
		if md[k] != want {
			t.Errorf("metadata %s = %v, want %v", k, md[k], want)
		}
	}
	if md := readMeta(t, b2); md["previousCompressionIndex"] == nil || md["compressionNumber"] != 2.0 {
		t.Errorf("metadata 2 %v", md)
	}
}

// TestOTelWithoutContent: a trace without message content is one warning
// that says so and what can still be done, no bundle, and the run's error
// says nothing was written; beside a trace with content, it is the
// warning alone.
func TestOTelWithoutContent(t *testing.T) {
	nc := filepath.Join(testdata, "otel", "no-content.jsonl")
	pack, err := prompt.Builtin(prompt.DefaultPackName)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	var warns []string
	_, err = Run(context.Background(), Options{Agent: agents.OTel, Paths: []string{nc}, OutDir: out, Pack: pack}, Hooks{Warn: func(w string) { warns = append(warns, w) }})
	var none *NoSessionsError
	if !errors.As(err, &none) || !strings.Contains(err.Error(), "records message content") {
		t.Fatalf("error %v", err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "no-content.jsonl holds no message content") || !strings.Contains(warns[0], "compact simulate") {
		t.Errorf("warnings %q", warns)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("wrote the output directory")
	}
	sum, _, warns := run(t, agents.OTel, nc, filepath.Join(testdata, "otel", "openinference-phoenix.json"))
	if sum.Bundles != 1 || len(warns) != 2 {
		t.Errorf("summary %+v, warnings %q", sum, warns)
	}
}

// TestOTelFindSessions: a directory gives its .json and .jsonl files;
// the file that is no trace is a warning, not a run's end.
func TestOTelFindSessions(t *testing.T) {
	files, err := FindSessions(agents.OTel, []string{filepath.Join(testdata, "otel")})
	if err != nil || len(files) != 10 {
		t.Fatalf("%q %v", files, err)
	}
	if _, err := DefaultDir(agents.OTel, nil); err == nil || !strings.Contains(err.Error(), "pass them") {
		t.Errorf("DefaultDir: %v", err)
	}
}
