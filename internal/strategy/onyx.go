package strategy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/history"
)

func init() {
	Registry[NameOnyx] = newOnyx
	About[NameOnyx] = "when the history passes 75% of the window less the reserved tokens, a summary replaces everything up to a cutoff before a user message, the newest 20% kept; past tool outputs are always a placeholder (Onyx)"
}

// Onyx defaults (peers.md A2).
const (
	OnyxTriggerRatio = 0.75
	OnyxRecentRatio  = 0.2
	// OnyxDefaultTarget is the size goal, in characters, handed to the
	// summarizer (Onyx asks for a thorough long-form summary; the builtin
	// rule-based summary needs a bound).
	OnyxDefaultTarget = 8000
)

// OnyxToolPlaceholder replaces every past tool response when the history
// is replayed (peers.md A8; our constant).
const OnyxToolPlaceholder = "This tool call completed but the results are no longer accessible."

// Our wording of Onyx's summarization prompts (peers.md A4, A5).
const (
	OnyxSystemPrompt = "You are condensing the earlier part of a conversation between a user and an AI assistant, so that the assistant can go on with a shorter history.\n\n" +
		"Summarize only the messages that come before the <context_cutoff> marker. The messages after it are there so you can judge what still matters: do not summarize them, and never mention the marker.\n\n" +
		"Stick to the facts: keep the user's intent, say what was decided and found, and do not guess. Write dense, detailed paragraphs covering the topics discussed, the decisions made and why, the tools used and what they returned, the conclusions reached, the questions still open, and every constraint, preference or assumption the user stated. Leave out small talk and repetition."
	// OnyxProgressiveHeader opens the block that carries the existing
	// summary at the end of the system prompt.
	OnyxProgressiveHeader   = "\n\nA summary of the conversation before these messages already exists. Build on it: keep what it says unless later messages change it, and extend it with the messages up to the cutoff.\n\n<existing_summary>\n"
	OnyxProgressiveFooter   = "\n</existing_summary>"
	OnyxCutoffMarker        = "<context_cutoff>\nSummarize the conversation up to this point only; what follows is context.\n</context_cutoff>"
	OnyxReminder            = "Now write a thorough, long-form summary of the conversation up to the <context_cutoff> marker. Do not mention the marker."
	OnyxProgressiveReminder = "Now update the existing summary with the conversation up to the <context_cutoff> marker, as one thorough, long-form summary that replaces it. Do not mention the marker."
)

// SummaryRecord is an Onyx summary row: its own record, a side leaf of the
// message tree.
type SummaryRecord struct {
	ID string `json:"id"`
	// ParentID is the last USER message of the summarized part (the tail
	// of the history when it has none).
	ParentID string `json:"parentId"`
	// LastSummarizedID is the cutoff: the last message the summary covers.
	LastSummarizedID string  `json:"lastSummarizedId"`
	Text             string  `json:"-"`
	Tokens           float64 `json:"tokens"`
	// CreatedAt is the time of the step that wrote it (zero when the
	// history has no times); Seq its rank among the records of one run.
	// Newest = latest CreatedAt, then highest Seq, then last in the slice.
	CreatedAt time.Time `json:"createdAt,omitzero"`
	Seq       int       `json:"seq"`
	// Summarized is the number of messages the request summarized.
	Summarized int `json:"summarized"`
}

// Turn is one chat turn of a summarization request.
type Turn struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// OnyxCost is a message's cost in Onyx's history measure with the default
// estimator: ceil(len16(content)/4) plus ceil(len16(arguments)/4) per tool
// call; a tool message costs its placeholder (the replay sends only that).
func OnyxCost(m *Message) float64 { return onyxCost(nil, m) }

func onyxCost(c *counter, m *Message) float64 {
	if m.Role == RoleTool {
		return onyxText(c, OnyxToolPlaceholder)
	}
	return onyxTokens(c, m.Content, m)
}

// onyxEmpty reports a message Onyx filters out before the split: a user or
// assistant message with no text (and, for an assistant, no tool call).
func onyxEmpty(m *Message) bool {
	switch m.Role {
	case RoleUser:
		return strings.TrimSpace(m.Content) == ""
	case RoleAssistant:
		return strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0
	}
	return false
}

// OnyxShouldCompress is Onyx's trigger: history > int((window − reserved) ×
// ratio), int() truncating as Python does.
func OnyxShouldCompress(historyTokens float64, window, reserved int, ratio float64) bool {
	return historyTokens > float64(int(float64(window-reserved)*ratio))
}

// OnyxHistoryTokens is Onyx's history measure: the summary's tokens plus
// the cost of every message after its cutoff (all messages when summary is
// nil or its cutoff is not in msgs). System messages are not counted (they
// belong to the reserved tokens).
func OnyxHistoryTokens(msgs []Message, summary *SummaryRecord, cost func(*Message) float64) float64 {
	t := 0.0
	cut := ""
	if summary != nil {
		t, cut = summary.Tokens, summary.LastSummarizedID
	}
	for _, k := range afterCutoff(msgs, cut) {
		if msgs[k].Role != RoleSystem {
			t += cost(&msgs[k])
		}
	}
	return t
}

// afterCutoff lists the indices of msgs after the message cutoffID (all of
// them when cutoffID is "" or not found).
func afterCutoff(msgs []Message, cutoffID string) []int {
	start := 0
	if cutoffID != "" {
		for k := range msgs {
			if msgs[k].ID == cutoffID {
				start = k + 1
				break
			}
		}
	}
	out := make([]int, 0, len(msgs)-start)
	for k := start; k < len(msgs); k++ {
		out = append(out, k)
	}
	return out
}

// OnyxSplit is get_messages_to_summarize (peers.md A3) on msgs, oldest
// first: only the messages after the cutoff (cutoffID; "" when there is no
// summary) are considered, system messages and empty ones filtered out.
// Walking back from the newest, each message's cost is added while it fits
// budget; the newest is always kept, the first that overflows goes to
// older. Then the cut moves forward until recent starts at a USER message;
// with no USER left in recent, recent is everything from the last USER
// message on; with no USER at all, older is empty (the caller skips).
// older and recent are indices into msgs.
func OnyxSplit(msgs []Message, cutoffID string, budget float64, cost func(*Message) float64) (older, recent []int) {
	start := 0
	if cutoffID != "" {
		for k := range msgs {
			if msgs[k].ID == cutoffID {
				start = k + 1
				break
			}
		}
	}
	return onyxSplitFrom(msgs, start, budget, cost)
}

// onyxSplitFrom is OnyxSplit on the messages from index start on (the
// strategy knows where its cutoff is: finding it by id from the start of
// the history at every compaction made a long history quadratic).
func onyxSplitFrom(msgs []Message, start int, budget float64, cost func(*Message) float64) (older, recent []int) {
	var cons []int
	for k := start; k < len(msgs); k++ {
		if m := &msgs[k]; m.Role != RoleSystem && !onyxEmpty(m) {
			cons = append(cons, k)
		}
	}
	n := len(cons)
	if n == 0 {
		return nil, nil
	}
	first, acc := n-1, cost(&msgs[cons[n-1]])
	for j := n - 2; j >= 0; j-- {
		c := cost(&msgs[cons[j]])
		if acc+c > budget {
			break
		}
		acc += c
		first = j
	}
	for first < n && msgs[cons[first]].Role != RoleUser {
		first++
	}
	if first == n {
		first = -1
		for j := n - 1; j >= 0; j-- {
			if msgs[cons[j]].Role == RoleUser {
				first = j
				break
			}
		}
		if first < 0 {
			return nil, cons
		}
	}
	return cons[:first], cons[first:]
}

// OnyxConvert is how Onyx turns a message into a summarization turn: user
// → user, assistant without tools → assistant, assistant with tool calls →
// one assistant turn "[Used tools: a, b]" (its own text is dropped); tool
// responses, system and empty messages give nothing (ok false).
func OnyxConvert(m *Message) (Turn, bool) {
	switch m.Role {
	case RoleUser:
		if strings.TrimSpace(m.Content) == "" {
			return Turn{}, false
		}
		return Turn{Role: RoleUser, Content: m.Content}, true
	case RoleAssistant:
		if len(m.ToolCalls) > 0 {
			names := make([]string, len(m.ToolCalls))
			for k, tc := range m.ToolCalls {
				names[k] = tc.Name
			}
			return Turn{Role: RoleAssistant, Content: "[Used tools: " + strings.Join(names, ", ") + "]"}, true
		}
		if strings.TrimSpace(m.Content) == "" {
			return Turn{}, false
		}
		return Turn{Role: RoleAssistant, Content: m.Content}, true
	}
	return Turn{}, false
}

// OnyxTurns lays a summarization request out as Onyx sends it, one turn
// each: the system prompt (with the existing summary as a progressive
// block when there is one), the older messages converted, the cutoff
// marker as its own user turn, the recent messages converted, and the
// final reminder (progressive wording when there is an existing summary).
func OnyxTurns(older, recent []Message, existing string) []Turn {
	sys := OnyxSystemPrompt
	reminder := OnyxReminder
	if existing != "" {
		sys += OnyxProgressiveHeader + existing + OnyxProgressiveFooter
		reminder = OnyxProgressiveReminder
	}
	turns := []Turn{{Role: RoleSystem, Content: sys}}
	for k := range older {
		if t, ok := OnyxConvert(&older[k]); ok {
			turns = append(turns, t)
		}
	}
	turns = append(turns, Turn{Role: RoleUser, Content: OnyxCutoffMarker})
	for k := range recent {
		if t, ok := OnyxConvert(&recent[k]); ok {
			turns = append(turns, t)
		}
	}
	return append(turns, Turn{Role: RoleUser, Content: reminder})
}

// JoinTurns writes turns as one text, "ROLE: content" blocks separated by
// blank lines (how SummaryRequest.User holds a multi-turn request).
func JoinTurns(turns []Turn) string {
	var b strings.Builder
	n := 0
	for _, t := range turns {
		n += len(t.Role) + len(t.Content) + 4
	}
	b.Grow(n)
	for k, t := range turns {
		if k > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.ToUpper(t.Role))
		b.WriteString(": ")
		b.WriteString(t.Content)
	}
	return b.String()
}

// onyxParent is the summary's parent: the last USER message of older, else
// the tail of the history.
func onyxParent(msgs []Message, older []int, tail int) string {
	for j := len(older) - 1; j >= 0; j-- {
		if msgs[older[j]].Role == RoleUser {
			return msgs[older[j]].ID
		}
	}
	return msgs[tail].ID
}

// OnyxSummaryParent is the parent a summary of older gets (ids in older
// order; tailID when older has no USER message).
func OnyxSummaryParent(older []Message, tailID string) string {
	for j := len(older) - 1; j >= 0; j-- {
		if older[j].Role == RoleUser {
			return older[j].ID
		}
	}
	return tailID
}

// newer reports whether a is newer than b (a at index ia, b at ib).
func newer(a *SummaryRecord, ia int, b *SummaryRecord, ib int) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.After(b.CreatedAt)
	}
	if a.Seq != b.Seq {
		return a.Seq > b.Seq
	}
	return ia > ib
}

func findSummary(summaries []SummaryRecord, branch []string, key func(*SummaryRecord) string) *SummaryRecord {
	on := make(map[string]bool, len(branch))
	for _, id := range branch {
		on[id] = true
	}
	best := -1
	for k := range summaries {
		if !on[key(&summaries[k])] {
			continue
		}
		if best < 0 || newer(&summaries[k], k, &summaries[best], best) {
			best = k
		}
	}
	if best < 0 {
		return nil
	}
	return &summaries[best]
}

// FindSummaryForBranch is Onyx's find_summary_for_branch: the newest
// summary whose parent is a message of branch (ids), nil when none.
func FindSummaryForBranch(summaries []SummaryRecord, branch []string) *SummaryRecord {
	return findSummary(summaries, branch, func(r *SummaryRecord) string { return r.ParentID })
}

// FindSummaryByCutoff is the variant PR #11700 proposed: the newest summary
// whose cutoff (LastSummarizedID) is a message of branch, nil when none.
func FindSummaryByCutoff(summaries []SummaryRecord, branch []string) *SummaryRecord {
	return findSummary(summaries, branch, func(r *SummaryRecord) string { return r.LastSummarizedID })
}

// LookupDiff is a branch on which the two lookups choose differently.
type LookupDiff struct {
	Leaf     string         `json:"leaf"`
	ByParent *SummaryRecord `json:"byParent"`
	ByCutoff *SummaryRecord `json:"byCutoff"`
}

// BranchLookupDiffs runs both lookups on every branch of tree (the path
// from the root to each leaf, Leaves order) and reports the branches where
// they disagree. A summary found by parent but not by cutoff covers
// messages that are not on the branch (the branch forked between its
// parent and its cutoff); one found by cutoff only was parented to a tail
// the branch no longer has (the orphaning of PR #11700).
func BranchLookupDiffs(tree []Message, summaries []SummaryRecord) ([]LookupDiff, error) {
	var out []LookupDiff
	for _, leaf := range Leaves(tree) {
		br, err := Branch(tree, leaf)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(br))
		for k := range br {
			ids[k] = br[k].ID
		}
		a, b := FindSummaryForBranch(summaries, ids), FindSummaryByCutoff(summaries, ids)
		if a != b {
			out = append(out, LookupDiff{Leaf: leaf, ByParent: a, ByCutoff: b})
		}
	}
	return out, nil
}

// onyxCore holds Onyx's parameters and the one-turn logic shared by the
// linear strategy and the tree run.
type onyxCore struct {
	window, reserved int
	ratio, recent    float64
	target           int
	counter          *counter
}

func newOnyxCore(b *base, cfg Config) onyxCore {
	reserved := cfg.Reserved
	if reserved == 0 {
		reserved = cfg.SystemOverhead
	}
	return onyxCore{
		window: b.window, reserved: reserved,
		ratio:   floatOr(cfg.Threshold, OnyxTriggerRatio),
		recent:  floatOr(cfg.RecentRatio, OnyxRecentRatio),
		target:  intOr(cfg.TargetChars, OnyxDefaultTarget),
		counter: b.counter,
	}
}

// split is the cut of msgs (the branch up to its tail) from index start
// (the first message after the active summary's cutoff) given the
// history measure; a note says why older is empty.
func (o *onyxCore) split(msgs []Message, tail, start int, history float64) (older, recent []int, note string) {
	cost := func(m *Message) float64 { return onyxCost(o.counter, m) }
	older, recent = onyxSplitFrom(msgs[:tail+1], start, float64(int(history*o.recent)), cost)
	if len(older) == 0 {
		note = "no USER message after the cutoff: skipped"
		if len(recent) > 0 && msgs[recent[0]].Role == RoleUser {
			note = "everything after the cutoff is recent: nothing to summarize"
		}
	}
	return older, recent, note
}

// summarize asks for the summary of older (recent as context) and builds
// its record; nil with a note when the summarizer failed (a soft failure
// in Onyx).
func (o *onyxCore) summarize(ctx context.Context, msgs []Message, tail int, older, recent []int, active *SummaryRecord, seq int, sum Summarizer) (*SummaryRecord, string, error) {
	existing := ""
	if active != nil {
		existing = active.Text
	}
	om, rm := pick(msgs, older), pick(msgs, recent)
	turns := OnyxTurns(om, rm, existing)
	first := older[len(older)-1] + 1
	req := SummaryRequest{
		Strategy:    NameOnyx,
		System:      turns[0].Content,
		User:        JoinTurns(turns[1:]),
		Compacted:   om,
		Previous:    existing,
		TargetChars: o.target,
		BoundaryID:  msgs[first].ID,
		Boundary:    &msgs[first],
	}
	text, err := sum.Summarize(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		return nil, "summarizer failed: " + err.Error(), nil
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, "summarizer returned nothing: no summary stored", nil
	}
	return &SummaryRecord{
		ID:               fmt.Sprintf("summary-%d", seq),
		ParentID:         onyxParent(msgs, older, tail),
		LastSummarizedID: msgs[older[len(older)-1]].ID,
		Text:             text,
		Tokens:           onyxText(o.counter, text),
		CreatedAt:        msgs[tail].CreatedAt,
		Seq:              seq,
		Summarized:       len(older),
	}, "", nil
}

func pick(msgs []Message, idx []int) []Message {
	out := make([]Message, len(idx))
	for k, j := range idx {
		out[k] = msgs[j]
	}
	return out
}

// onyx is the linear-history strategy: one branch, the active summary is
// FindSummaryForBranch over the records it wrote (the newest, on a list).
//
// Trigger: history (the active summary's tokens plus the cost of every
// message after its cutoff) > int((window − reserved) × threshold), with
// reserved = Config.Reserved, or Config.SystemOverhead when 0, plus the
// history's own system messages; threshold 0.75, recent share 0.2, window
// DefaultContextWindow unless configured. ContextTokens = system overhead
// + system messages + history.
//
// View: the history's system messages (Onyx sends its system prompt
// separately; they count as reserved tokens), then the active summary as
// an assistant message, then every message after its cutoff with each tool
// response replaced by OnyxToolPlaceholder (the view is what the next turn
// sends, and every tool response is then a past one).
type onyx struct {
	base
	core onyxCore

	hist   []Message
	sys    []int
	sysTok float64
	// cum[k] and cnt[k] are the cost and the number of the non-system
	// messages before history index k: the view's figures are
	// differences of two of them, whatever the history's length.
	cum []float64
	cnt []int

	// Compaction state (Checkpoint saves it).
	records []SummaryRecord
	cuts    []int // history index of each record's cutoff
	active  int   // index in records, -1 none
	cutoff  int   // history index of the active cutoff, -1 none
}

func newOnyx(cfg Config) (Strategy, error) {
	b, err := newBase(cfg)
	if err != nil {
		return nil, err
	}
	return &onyx{base: b, core: newOnyxCore(&b, cfg), active: -1, cutoff: -1, cum: []float64{0}, cnt: []int{0}}, nil
}

func (o *onyx) Name() string { return NameOnyx }

// SummaryRecorder is implemented by the onyx strategy: the summary
// records it wrote (those a guardrail undid are gone).
type SummaryRecorder interface {
	Summaries() []SummaryRecord
}

// Summaries returns the summary records written so far (kept ones).
func (o *onyx) Summaries() []SummaryRecord { return append([]SummaryRecord(nil), o.records...) }

func (o *onyx) appendUpTo(hist []Message, i int) {
	o.hist = hist
	for k := o.upto + 1; k <= i; k++ {
		m := &hist[k]
		c := onyxCost(o.counter, m)
		last := len(o.cum) - 1
		if m.Role == RoleSystem {
			o.sys = append(o.sys, k)
			o.sysTok += c
			o.cum, o.cnt = append(o.cum, o.cum[last]), append(o.cnt, o.cnt[last])
			continue
		}
		o.cum, o.cnt = append(o.cum, o.cum[last]+c), append(o.cnt, o.cnt[last]+1)
	}
	o.upto = max(o.upto, i)
}

func (o *onyx) activeRec() *SummaryRecord {
	if o.active < 0 {
		return nil
	}
	return &o.records[o.active]
}

// viewSum is the cost of the non-system messages after the cutoff.
func (o *onyx) viewSum() float64 { return o.cum[o.upto+1] - o.cum[o.cutoff+1] }

func (o *onyx) historyTokens() float64 {
	t := o.viewSum()
	if a := o.activeRec(); a != nil {
		t += a.Tokens
	}
	return t
}

func (o *onyx) tokens() float64 { return o.overhead + o.sysTok + o.historyTokens() }

func (o *onyx) rawTokens() float64 { return o.overhead + o.sysTok + o.cum[o.upto+1] }

// State implements Guarded.
func (o *onyx) State() (int, int, float64) {
	kept := len(o.sys) + o.cnt[o.upto+1] - o.cnt[o.cutoff+1]
	sc := 0
	if a := o.activeRec(); a != nil {
		sc = history.Len16(a.Text)
	}
	return kept, sc, o.tokens()
}

// Checkpoint implements Guarded.
func (o *onyx) Checkpoint() func() {
	n, active, cutoff := len(o.records), o.active, o.cutoff
	return func() {
		o.records, o.cuts, o.active, o.cutoff = o.records[:n], o.cuts[:n], active, cutoff
	}
}

// Step implements Strategy.
func (o *onyx) Step(ctx context.Context, hist []Message, i int, sum Summarizer) (StepReport, error) {
	o.appendUpTo(hist, i)
	r := StepReport{Boundary: -1, ContextTokens: o.tokens()}
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = o.State()
	h := o.historyTokens()
	reserved := o.core.reserved + int(o.sysTok)
	if !OnyxShouldCompress(h, o.core.window, reserved, o.core.ratio) {
		return r, nil
	}
	r.Fired = true
	older, recent, note := o.core.split(hist, i, o.cutoff+1, h)
	if len(older) == 0 {
		r.Note = note
		return r, nil
	}
	if o.hold {
		r.Rejected, r.Note = RejectCap, "the summarizer was called in the previous steps: held"
		return r, nil
	}
	rec, note, err := o.core.summarize(ctx, hist, i, older, recent, o.activeRec(), len(o.records)+1, sum)
	r.SummarizerCalled, r.Note = true, note
	if err != nil || rec == nil {
		return r, err
	}
	o.records = append(o.records, *rec)
	o.cuts = append(o.cuts, older[len(older)-1])
	// FindSummaryForBranch on a list: every record's parent is on the
	// branch, so the active summary is the newest record, kept as the
	// records are written rather than looked up over the whole branch at
	// each compaction (that made a long history quadratic).
	if n := len(o.records) - 1; o.active < 0 || newer(&o.records[n], n, &o.records[o.active], o.active) {
		o.active = n
	}
	o.cutoff = o.cuts[o.active]
	r.Boundary = o.cutoff + 1
	r.BoundaryID = hist[r.Boundary].ID
	r.Compacted, r.Summary = len(older), rec.Text
	r.KeptVerbatim, r.SummaryChars, r.AfterTokens = o.State()
	// The system messages lead the view; the summary after them is new.
	r.KeptPrefix = o.overhead + o.sysTok
	return r, nil
}

// View implements Strategy.
func (o *onyx) View() []Message {
	out := make([]Message, 0, len(o.sys)+1+o.upto-o.cutoff)
	for _, k := range o.sys {
		out = append(out, o.hist[k])
	}
	if a := o.activeRec(); a != nil {
		out = append(out, Message{ID: a.ID, ParentID: a.ParentID, Role: RoleAssistant, Content: a.Text, CreatedAt: a.CreatedAt})
	}
	for k := o.cutoff + 1; k <= o.upto; k++ {
		m := o.hist[k]
		if m.Role == RoleSystem {
			continue
		}
		if m.Role == RoleTool {
			m.Content = OnyxToolPlaceholder
		}
		out = append(out, m)
	}
	return out
}
