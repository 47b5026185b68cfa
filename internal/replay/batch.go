package replay

import (
	"os"
	"slices"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/history"
)

// What internal/batch needs to land batch answers exactly where an
// interactive replay lands its own, so that diff and eval cannot tell them
// apart.

// BatchRef names the provider batch an answer came through.
type BatchRef struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	// CustomID is the request's id within the batch (a prefix of the
	// response cache key).
	CustomID string `json:"customId,omitempty"`
}

// Sha256 is the hex SHA-256 of s, as records carry the prompts' hashes.
func Sha256(s string) string { return sha(s) }

// Answered reports whether bundle already has an answer for run from the
// same models and the same two prompts (by SHA-256): the result a replay
// skips unless --force.
func Answered(dir, run string, models []string, systemSha, userSha string) (*Record, bool) {
	old, err := ReadRecord(dir, run)
	if err != nil || !old.OK() || old.SystemSha256 != systemSha || old.UserSha256 != userSha || !slices.Equal(old.Models, models) {
		return nil, false
	}
	if _, err := os.Stat(bundle.OutputPath(dir, run)); err != nil {
		return nil, false
	}
	return old, true
}

// WriteResult writes <bundle>/replays/<run>/ as replay does: replay.json
// and, when rec.OK(), output.md with text, through a temporary directory
// and a rename. Every text of the record and the answer go through redact
// first (nil: URL credentials only); OutputChars and OutputSha256 are set
// from the answer kept.
func WriteResult(dir, run string, rec *Record, text string, redact func(string) string) error {
	if redact == nil {
		redact = func(s string) string { return cascade.Redact(s) }
	}
	rec.Run = run
	if rec.Attempts == nil {
		rec.Attempts = []cascade.Attempt{}
	}
	if rec.OK() {
		text = redact(text)
		rec.OutputChars = history.Len16(text)
		rec.OutputSha256 = sha(text)
	} else {
		text = ""
	}
	redactRecord(rec, redact)
	return writeResult(dir, run, rec, text)
}
