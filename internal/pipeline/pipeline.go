// Package pipeline owns the live compression path run offline on one chat:
// what the app would do after a step (the trigger check with its figures,
// the backward boundary walk, the serializer from the previous briefing on,
// the prompt with its budget hint), written as one bundle in the extract
// layout, ready for a model or the cascade.
package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/boundary"
	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/estimate"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/upstream"
)

// Options of one run.
type Options struct {
	DBPath string
	ChatID string
	// At cuts the history after message At (the state after that step);
	// -1 takes the chat as it stands.
	At int
	// ContextWindow overrides the model lookup; nil looks the chat's
	// active model (and its provider instance) up in Windows with
	// upstream.LookupWindow (a model not there is a failed lookup).
	ContextWindow *int
	Windows       map[string]int
	Params        boundary.Params
	Profile       *serialize.Profile
	Estimate      estimate.Profile
	SkillsDir     string
	Pack          *prompt.Pack
	Locale        string
	// OutDir receives the bundle; it must not exist unless Force.
	OutDir string
	Force  bool
}

// Result is what the run found, and where the bundle went.
type Result struct {
	ChatID      string `json:"chatId"`
	Title       string `json:"title"`
	ActiveModel string `json:"activeModel"`
	// ProviderInstance is the chat's active_provider_instance_id, "" when
	// it has none.
	ProviderInstance string `json:"providerInstance,omitempty"`
	Messages         int    `json:"messages"`
	// UsedTokensFrom says where the trigger's figure came from: the
	// used_tokens column (the last step's usage) or, for --at, the sum of
	// the estimates up to that message.
	UsedTokensFrom string                 `json:"usedTokensFrom"`
	Trigger        boundary.TriggerResult `json:"trigger"`
	Walk           boundary.Result        `json:"walk"`
	// Estimates are the per-message token estimates the walk used.
	Estimates []float64 `json:"-"`
	// Bundle is the directory written; "" when the walk skipped.
	Bundle       string `json:"bundle,omitempty"`
	PrevChars    int    `json:"previousBriefingChars"`
	CompactChars int    `json:"compactHistoryChars"`
	UserChars    int    `json:"userMessageChars"`
	// StoredSummary is true when the boundary message already carries a
	// briefing (written as the bundle's bundle.FileActual).
	StoredSummary bool `json:"storedSummary"`
	// LeftoversRemoved counts what killed runs had left beside the bundle
	// (.<dir>.partial-N, .<dir>.partial-N.old), removed before writing.
	LeftoversRemoved int `json:"-"`
}

// Skipped reports whether the walk found nothing to compress.
func (r *Result) Skipped() bool { return r.Walk.Kind != boundary.KindCompress }

// Run reads the chat, decides, and writes the bundle when there is
// something to compress.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Pack == nil {
		return nil, errors.New("pipeline: no prompt pack")
	}
	if opts.Profile == nil {
		opts.Profile = serialize.Profiles["e3e"]
	}
	snap, err := store.OpenSnapshot(ctx, opts.DBPath)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	det, err := snap.ChatDetails(ctx, opts.ChatID)
	if err != nil {
		return nil, err
	}
	rows, err := snap.Messages(ctx, opts.ChatID)
	if err != nil {
		return nil, err
	}
	msgs := make([]history.Value, len(rows))
	for i, r := range rows {
		m, err := history.MessageFromRow(r.ID, r.Role, r.Parts, r.Metadata, r.MetadataNull)
		if err != nil {
			return nil, fmt.Errorf("chat %s row seq %d: %w", opts.ChatID, r.Seq, err)
		}
		msgs[i] = m
	}
	if opts.At >= 0 {
		if opts.At >= len(msgs) {
			return nil, fmt.Errorf("--at %d: chat %s has %s (0 to %d)", opts.At, opts.ChatID, plural(len(msgs), "message"), len(msgs)-1)
		}
		msgs = msgs[:opts.At+1]
	}
	res := &Result{ChatID: det.ID, Title: det.Title, ActiveModel: det.ActiveModelID, ProviderInstance: det.ActiveProviderInstanceID, Messages: len(msgs)}

	// The estimates, as the walk computes them; a throw aborts upstream.
	res.Estimates = make([]float64, len(msgs))
	for i, m := range msgs {
		t, err := opts.Estimate.MessageTokens(m)
		if err != nil {
			return nil, fmt.Errorf("message %d: estimateMessageTokens throws (%v): the app would abort this compression", i, err)
		}
		res.Estimates[i] = t
	}

	window := opts.ContextWindow
	if window == nil {
		if n, ok := upstream.LookupWindow(opts.Windows, det.ActiveModelID, det.ActiveProviderInstanceID); ok {
			window = &n
		}
	}
	used := float64(det.UsedTokens)
	res.UsedTokensFrom = "used_tokens column"
	if opts.At >= 0 || !det.HasUsedTokens {
		used = 0
		for _, t := range res.Estimates {
			used += t
		}
		res.UsedTokensFrom = "sum of message estimates"
	}
	res.Trigger = boundary.ExplainTrigger(used, window, opts.Params)
	res.Walk = boundary.WalkEntries(res.Estimates, boundary.EntriesOf(msgs), window, opts.Params)
	if res.Skipped() {
		return res, nil
	}
	b := *res.Walk.BoundaryIndex
	toCompact := msgs[:b]

	md := bundle.UpstreamMetadata{
		ChatID: det.ID, ChatTitle: history.StringValue(det.Title), Channel: "compress",
		CompressionNumber: 1, TotalCompressions: 1, TotalChatMessages: len(msgs),
		BoundaryMessageIndex: b, BoundaryMessageID: msgs[b].Get("id"),
		TotalMessagesInSlice: b, SerializedMessageCount: b, PreviousCompressionIndex: -1,
	}
	// The live path sizes the hint by the last truthy briefing in the
	// compacted part.
	for i := b - 1; i >= 0; i-- {
		if s := history.CompressedHistory(msgs[i]); s.Truthy() {
			md.PreviousCompressionIndex = i
			md.SerializedMessageCount = b - i
			if s.Kind() == history.String {
				md.PreviousCompressionSize = history.Len16(s.Str())
			}
			break
		}
	}
	var slash map[string]serialize.SlashItem
	if opts.Profile.SlashCommands {
		var skills *serialize.Skills
		if opts.SkillsDir != "" {
			if skills, err = serialize.LoadSkills(opts.SkillsDir); err != nil {
				return nil, err
			}
		}
		ids, err := serialize.SlashIDs(toCompact)
		if err != nil {
			return nil, err
		}
		md.HasSlash = true
		slash, md.SlashIdsResolved = serialize.Resolve(ids, skills)
	}
	compact := serialize.Serialize(toCompact, serialize.Options{Profile: opts.Profile, Slash: slash})
	user := opts.Pack.UserMessage(compact, md.PreviousCompressionSize, opts.Locale)
	actual := ""
	if s := history.CompressedHistory(msgs[b]); s.Kind() == history.String {
		actual = s.Str()
		res.StoredSummary = true
	}
	md.CompactHistoryChars = history.Len16(compact)
	md.UserMessageChars = history.Len16(user)
	md.ActualOutputChars = history.Len16(actual)
	md.ActualOutputIncludesPreviousTag = strings.Contains(actual, serialize.PrevOpen)
	res.PrevChars, res.CompactChars, res.UserChars = md.PreviousCompressionSize, md.CompactHistoryChars, md.UserMessageChars

	report, err := json.MarshalIndent(struct {
		*Result
		Estimates []string `json:"estimates"`
	}{res, formatEstimates(res.Estimates)}, "", "  ")
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		bundle.FileSystemPrompt: []byte(opts.Pack.System()),
		bundle.FileUserMessage:  []byte(history.ToWellFormed(user)),
		bundle.FileCompact:      []byte(history.ToWellFormed(compact)),
		bundle.FileActual:       []byte(history.ToWellFormed(actual)),
		bundle.FileMetadata:     md.AppendJSON(nil),
		FilePipeline:            append(report, '\n'),
	}
	removed, err := writeBundle(opts.OutDir, files, opts.Force)
	res.LeftoversRemoved = removed
	if err != nil {
		return nil, err
	}
	res.Bundle = opts.OutDir
	return res, nil
}

// FilePipeline is the extra file of a compress bundle: the trigger and walk
// figures behind it.
const FilePipeline = "pipeline.json"

func formatEstimates(ts []float64) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		if math.IsNaN(t) {
			out[i] = "NaN"
		} else {
			out[i] = history.FormatNumber(t)
		}
	}
	return out
}

// writeBundle writes the files into a temporary directory beside dir and
// renames it into place. It first removes the leftovers of killed runs
// for the same dir that no live process holds, and returns how many.
// rename is os.Rename; tests make it fail.
var rename = os.Rename

func writeBundle(dir string, files map[string][]byte, force bool) (removed int, err error) {
	if _, err := os.Lstat(dir); err == nil && !force {
		return 0, fmt.Errorf("%s exists: pass --force to replace it, or choose another --out", dir)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, err
	}
	prefix := fsutil.PartialPrefix(dir)
	// A leftover that cannot be removed does not stop the run.
	removed, _ = fsutil.CleanStale(parent, prefix)
	tmp, err := fsutil.MkdirTemp(parent, prefix, "")
	if err != nil {
		return removed, err
	}
	defer fsutil.Release(tmp)
	defer os.RemoveAll(tmp)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			return removed, err
		}
	}
	if _, err := os.Lstat(dir); err == nil {
		old := tmp + ".old"
		// Held while renamed and removed: not a leftover to another run.
		release, _ := fsutil.Hold(dir)
		defer release()
		if err := rename(dir, old); err != nil {
			return removed, err
		}
		if err := rename(tmp, dir); err != nil {
			// The new bundle could not take its place: put the previous
			// one back rather than leave nothing.
			if rerr := rename(old, dir); rerr != nil {
				return removed, fmt.Errorf("%w (and the previous bundle could not be put back: it is at %s)", err, old)
			}
			return removed, err
		}
		return removed, os.RemoveAll(old)
	}
	return removed, rename(tmp, dir)
}

// plural is "1 message", "2 messages": word's plural adds s.
func plural(n int, word string) string {
	return pluralForm(n, word, word+"s")
}

// pluralForm is "1 one" or "N many".
func pluralForm(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
