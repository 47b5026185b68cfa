package cascade

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/testfiles"
)

// bigAnswer is n bytes of text whose byte max-1 begins a 3-byte character,
// so that a cut at max bytes falls inside it.
func bigAnswer(n, max int) string {
	var b strings.Builder
	b.Grow(n)
	b.WriteString(strings.Repeat("a", max-1))
	for b.Len() < n {
		b.WriteString("✓ briefing ")
	}
	return b.String()
}

// TestLongAnswersAreCut: a 10 MB answer keeps cascade.max_answer_bytes of
// it, cut at a character boundary, and the attempt says it was cut and how
// long it was; on every provider.
//
// Under the race detector the default limit (4 MiB) is checked on one
// provider, Anthropic's, and the set 1 MiB limit on all three; each
// answer is a quarter over its limit. The default is settled once for
// every provider (Settings.maxAnswerBytes, passed in
// Request.MaxAnswerBytes) and the cut is the cascade's, not the
// provider's: the 1 MiB case proves each provider reads, and the cascade
// cuts, an answer over the limit it is given; the default case proves the
// default is the limit given. An answer longer still, or decoded by each
// SDK once more, finds no race (one goroutine per request) and took 20 s.
func TestLongAnswersAreCut(t *testing.T) {
	all := []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"}
	for _, tc := range []struct{ max, size int }{{DefaultMaxAnswerBytes, 10 << 20}, {1 << 20, 3 << 20}} {
		max := tc.max
		ids := all
		if testfiles.Race {
			tc.size = max + max/4
			if max == DefaultMaxAnswerBytes {
				ids = all[2:]
			}
		}
		text := TrimJS(bigAnswer(tc.size, max))
		s := testSettings()
		s.Timeout = 20 * time.Second
		if max != DefaultMaxAnswerBytes {
			s.MaxAnswerBytes = max
		} else {
			s.MaxAnswerBytes = 0 // the default applies
		}
		r := newRig(t, s, ok(geminiAnswer, text), ok(openaiAnswer, text), ok(anthropicAnswer, text))
		for _, id := range ids {
			out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{id})
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			a := out.Attempts[0]
			if !out.Truncated || !a.OutputTruncated || out.OriginalBytes != len(text) || a.OutputOriginalBytes != len(text) {
				t.Errorf("%s: truncated %v/%v, original %d/%d, want %d", id, out.Truncated, a.OutputTruncated, out.OriginalBytes, a.OutputOriginalBytes, len(text))
			}
			if len(out.Text) != max-1 || !utf8.ValidString(out.Text) || out.Text != text[:max-1] {
				t.Errorf("%s: kept %d bytes (valid %v), want %d", id, len(out.Text), utf8.ValidString(out.Text), max-1)
			}
			if a.OutputChars != max-1 {
				t.Errorf("%s: outputChars %d", id, a.OutputChars)
			}
		}
	}
	// A short answer is not marked.
	r := newRig(t, testSettings(), nil, ok(openaiAnswer, longAnswer), nil)
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"gpt-5.4-nano"})
	if err != nil || out.Truncated || out.Attempts[0].OutputTruncated || out.OriginalBytes != 0 || out.Text != longAnswer {
		t.Errorf("short answer: %+v %v", out, err)
	}
}

// TestHugeBodiesAreNotReadWhole: a response body far over the limit fails
// the attempt once (no retry: it would be as long) after at most the
// limit was read, whatever the provider.
func TestHugeBodiesAreNotReadWhole(t *testing.T) {
	const max = 64 << 10
	limit := bodyLimit(max)
	var written atomic.Int64
	huge := func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"`)
		chunk := []byte(strings.Repeat("x", 32<<10))
		for i := 0; i < (200<<20)/len(chunk); i++ {
			k, err := w.Write(chunk)
			written.Add(int64(k))
			if err != nil {
				return
			}
		}
	}
	s := testSettings()
	s.Timeout = 20 * time.Second
	s.MaxAnswerBytes = max
	r := newRig(t, s, huge, huge, huge)
	for _, id := range []string{"gemini-3.1-flash-lite", "gpt-5.4-nano", "claude-haiku-4.5"} {
		written.Store(0)
		out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{id})
		var fe *FailedError
		if !errors.As(err, &fe) {
			t.Fatalf("%s: %v", id, err)
		}
		a := out.Attempts[0]
		if len(a.Tries) != 1 || a.Tries[0].Transient || !strings.Contains(a.Error, "max_answer_bytes") {
			t.Errorf("%s: %+v", id, a)
		}
		// The server stops when the client hangs up; what it got out is
		// the client's read plus the socket buffers, far below 200 MiB.
		if w := written.Load(); w > limit+(32<<20) {
			t.Errorf("%s: the server wrote %d bytes, limit %d", id, w, limit)
		}
	}
}

// TestTheCutLeavesNoPieceOfAKey: the answer is redacted before it is cut,
// so a key across the cut leaves nothing of itself.
func TestTheCutLeavesNoPieceOfAKey(t *testing.T) {
	text := strings.Repeat("a", 100) + openaiKey + " and more"
	s := testSettings()
	s.MaxAnswerBytes = 110
	r := newRig(t, s, nil, ok(openaiAnswer, text), nil)
	out, err := r.c.Run(context.Background(), Input{System: "s", User: "u"}, []string{"gpt-5.4-nano"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Truncated || out.OriginalBytes != len(text) || len(out.Text) != 110 || strings.Contains(out.Text, openaiKey[:6]) {
		t.Errorf("kept %q (truncated %v, original %d)", out.Text, out.Truncated, out.OriginalBytes)
	}
}
