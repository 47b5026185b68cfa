package strategy

import (
	"math"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// Defaults the strategies built on rview share.
const (
	// DefaultSummaryTarget is the size goal, in characters, handed to the
	// summarizer by prune-summarize, mask-then-summarize and
	// codex-user-retention (about 2,000 tokens; at most the window in
	// characters, a quarter of it in tokens).
	DefaultSummaryTarget = 8000
)

// rview is the state of the strategies the agents use since 2025
// (observation-masking, tool-clearing, prune-summarize,
// mask-then-summarize, codex-user-retention). The view is, in order:
//
//   - the history's system messages (as every strategy keeps them);
//   - the user messages a compaction kept (Codex's retention), if any;
//   - the summary, if any (a user message);
//   - the conversation messages from position start on, in history
//     order, each as it is or rewritten (a tool result replaced by a
//     placeholder).
//
// Every message is counted with the plain estimator: ceil(len16(content +
// JSON of each tool call) / 4) + GenericOverhead (characters / 4, the
// providers' rule of thumb), or with Config.Tokenizer. The tokens each
// conversation message sends now are kept in a Fenwick tree, so the
// tokens before a position (what a rewrite left unchanged at the head of
// the view) and the start of a tail of a given size take O(log n): every
// strategy on it is linear in the history.
type rview struct {
	base
	hist   []Message
	sys    []int
	sysTok float64
	rawSum float64 // Σ tokens of every message as it was

	conv  []int    // history index of each conversation message
	fw    fenwick  // tokens each conversation message sends now, by position
	over  []string // rewritten content by position ("": as it is)
	tools []int    // positions of the tool results
	users []int    // positions of the user messages
	steps []int    // positions of the assistant messages

	// viewTok is the tokens conv[start:] send now (the Fenwick tree's sum
	// over them, kept as it changes: every step reads it).
	viewTok float64

	// Compaction state (checkpoint saves it).
	start    int // conv[start:] are in the view
	summary  string
	sumTok   float64
	sumLen   int       // history.Len16(summary): State reads it every step
	retained []Message // user messages kept ahead of the summary
	retTok   float64
	journal  []rvEdit // rewrites since the last checkpoint
}

// rvEdit is a rewrite, to undo: what the position held before.
type rvEdit struct {
	pos     int
	content string
	tok     float64
}

func newRView(cfg Config) (rview, error) {
	b, err := newBase(cfg)
	if err != nil {
		return rview{}, err
	}
	return rview{base: b}, nil
}

// plainTokens is the plain estimate of message m sent with content.
func plainTokens(c *counter, content string, m *Message) float64 {
	if c != nil {
		t := c.count(content)
		for _, tc := range m.ToolCalls {
			t += c.count(toolCallJSON(tc))
		}
		return t + TokenizerOverhead
	}
	return math.Ceil(float64(history.Len16(content)+toolCallsLen16(m))/4) + GenericOverhead
}

// plainText is the plain estimate of a message holding only text s.
func plainText(c *counter, s string) float64 {
	if c != nil {
		return c.count(s) + TokenizerOverhead
	}
	return math.Ceil(float64(history.Len16(s))/4) + GenericOverhead
}

func (v *rview) appendUpTo(hist []Message, i int) {
	if v.hist == nil {
		// The history is known from the first step: room for all of it
		// at once, rather than arrays grown again and again.
		n := len(hist)
		v.conv, v.over = make([]int, 0, n), make([]string, 0, n)
		v.fw.v, v.fw.t = make([]float64, 0, n), make([]float64, 0, n)
	}
	v.hist = hist
	for k := v.upto + 1; k <= i; k++ {
		m := &hist[k]
		t := plainTokens(v.counter, m.Content, m)
		v.rawSum += t
		if m.Role == RoleSystem {
			v.sys = append(v.sys, k)
			v.sysTok += t
			continue
		}
		pos := len(v.conv)
		v.conv = append(v.conv, k)
		v.over = append(v.over, "")
		v.fw.push(t)
		v.viewTok += t
		switch m.Role {
		case RoleTool:
			v.tools = append(v.tools, pos)
		case RoleUser:
			v.users = append(v.users, pos)
		case RoleAssistant:
			v.steps = append(v.steps, pos)
		}
	}
	v.upto = max(v.upto, i)
}

// head is the tokens of the view before its first conversation message.
func (v *rview) head() float64 { return v.overhead + v.sysTok + v.retTok + v.sumTok }

func (v *rview) tokens() float64 { return v.head() + v.viewTok }

func (v *rview) rawTokens() float64 { return v.overhead + v.rawSum }

// before is the tokens of the view before conversation position pos.
func (v *rview) before(pos int) float64 { return v.head() + v.fw.sum(v.start, pos) }

// State implements Guarded.
func (v *rview) State() (int, int, float64) {
	return len(v.sys) + len(v.retained) + len(v.conv) - v.start, v.sumLen, v.tokens()
}

// content is what position pos sends now.
func (v *rview) content(pos int) string {
	if c := v.over[pos]; c != "" {
		return c
	}
	return v.hist[v.conv[pos]].Content
}

// rewritten reports whether position pos was rewritten.
func (v *rview) rewritten(pos int) bool { return v.over[pos] != "" }

// rewrite makes position pos send content (not empty).
func (v *rview) rewrite(pos int, content string) {
	v.journal = append(v.journal, rvEdit{pos: pos, content: v.over[pos], tok: v.fw.v[pos]})
	v.over[pos] = content
	t := plainTokens(v.counter, content, &v.hist[v.conv[pos]])
	if pos >= v.start {
		v.viewTok += t - v.fw.v[pos]
	}
	v.fw.set(pos, t)
}

// setStart takes conv[start:to] out of the view (a summary replaced them).
func (v *rview) setStart(to int) {
	v.viewTok -= v.fw.sum(v.start, to)
	v.start = to
}

// mask rewrites the tool results tools[*next:until] that are in the
// view and not yet rewritten with placeholder(original content), each
// only when that is smaller (a result shorter than its placeholder stays
// as it is), and moves *next to until. It returns the history indices
// rewritten, in order, and the position of the first (-1 none).
func (v *rview) mask(next *int, until int, placeholder func(content string) string) (replaced []int, first int) {
	first = -1
	for ; *next < until; *next++ {
		p := v.tools[*next]
		if p < v.start || v.rewritten(p) {
			continue
		}
		m := &v.hist[v.conv[p]]
		ph := placeholder(m.Content)
		if plainTokens(v.counter, ph, m) >= v.fw.v[p] {
			continue
		}
		v.rewrite(p, ph)
		if first < 0 {
			first = p
		}
		replaced = append(replaced, v.conv[p])
	}
	return replaced, first
}

// firstAtOrAfter is the index in xs (sorted positions) of the first one
// at or after pos.
func firstAtOrAfter(xs []int, pos int) int { return sort.SearchInts(xs, pos) }

// setSummary places text as the summary.
func (v *rview) setSummary(text string) {
	v.summary, v.sumTok, v.sumLen = text, 0, history.Len16(text)
	if text != "" {
		v.sumTok = plainText(v.counter, text)
	}
}

// setRetained places msgs ahead of the summary.
func (v *rview) setRetained(msgs []Message) {
	v.retained = msgs
	v.retTok = 0
	for k := range msgs {
		v.retTok += plainTokens(v.counter, msgs[k].Content, &msgs[k])
	}
}

// messages are the original conversation messages of positions lo..hi-1.
func (v *rview) messages(lo, hi int) []Message {
	out := make([]Message, 0, max(0, hi-lo))
	for p := lo; p < hi; p++ {
		out = append(out, v.hist[v.conv[p]])
	}
	return out
}

// checkpoint saves the compaction state; the function restores it. Only
// the latest checkpoint can be restored (the driver restores within the
// step it took it in): the journal starts again at each one.
func (v *rview) checkpoint() func() {
	v.journal = v.journal[:0]
	start, summary, sumTok, sumLen, retained, retTok := v.start, v.summary, v.sumTok, v.sumLen, v.retained, v.retTok
	return func() {
		for j := len(v.journal) - 1; j >= 0; j-- {
			e := v.journal[j]
			v.over[e.pos] = e.content
			v.fw.set(e.pos, e.tok)
		}
		v.journal = v.journal[:0]
		v.start, v.summary, v.sumTok, v.sumLen, v.retained, v.retTok = start, summary, sumTok, sumLen, retained, retTok
		v.viewTok = v.fw.sum(v.start, len(v.conv))
	}
}

// SummaryMessageID is the id of the summary message in the view of the
// strategies that place one ahead of the conversation.
const SummaryMessageID = "summary"

// View implements Strategy.
func (v *rview) View() []Message {
	out := make([]Message, 0, len(v.sys)+len(v.retained)+1+len(v.conv)-v.start)
	for _, k := range v.sys {
		out = append(out, v.hist[k])
	}
	out = append(out, v.retained...)
	if v.summary != "" {
		out = append(out, Message{ID: SummaryMessageID, Role: RoleUser, Content: v.summary})
	}
	for p := v.start; p < len(v.conv); p++ {
		m := v.hist[v.conv[p]]
		m.Content = v.content(p)
		out = append(out, m)
	}
	return out
}

// transcript renders msgs for a summarization request, one block per
// message, as OpenCode serializes a history for its compaction: "[User]:
// text", "[Assistant]: text", "[Assistant tool call]: name(arguments)",
// "[Tool result]: output" (cut at toolMax characters, 0 no cut; a
// rewritten result as it is sent now). contents gives what each message
// sends (nil: its own content). more are messages rendered after msgs, as
// they are (Codex's request: the user messages kept, then the new ones,
// without copying them into one slice).
func transcript(previous string, msgs []Message, contents []string, toolMax int, more ...[]Message) string {
	var b strings.Builder
	size := len(previous) + 24
	for _, ms := range append([][]Message{msgs}, more...) {
		for k := range ms {
			size += 24 + len(ms[k].Content)
			for _, tc := range ms[k].ToolCalls {
				size += 28 + len(tc.Name) + len(tc.Arguments)
			}
		}
	}
	for _, c := range contents {
		size += len(c)
	}
	b.Grow(size)
	if previous != "" {
		b.WriteString("[Previous summary]: ")
		b.WriteString(previous)
		b.WriteString("\n")
	}
	writeTranscript(&b, msgs, contents, toolMax)
	for _, ms := range more {
		writeTranscript(&b, ms, nil, toolMax)
	}
	return b.String()
}

func writeTranscript(b *strings.Builder, msgs []Message, contents []string, toolMax int) {
	for k := range msgs {
		m := &msgs[k]
		c := m.Content
		if contents != nil {
			c = contents[k]
		}
		switch m.Role {
		case RoleUser:
			b.WriteString("[User]: ")
		case RoleAssistant:
			if c != "" {
				b.WriteString("[Assistant]: ")
				b.WriteString(c)
				b.WriteString("\n")
			}
			for _, tc := range m.ToolCalls {
				b.WriteString("[Assistant tool call]: " + tc.Name + "(" + tc.Arguments + ")\n")
			}
			continue
		case RoleTool:
			b.WriteString("[Tool result]: ")
			if toolMax > 0 && history.Len16(c) > toolMax {
				c = history.Slice16(c, toolMax) + "\n[truncated]"
			}
		default:
			b.WriteString("[" + m.Role + "]: ")
		}
		b.WriteString(c)
		b.WriteString("\n")
	}
}

// extraOr is the Config.Extra knob name, or def when it is not set.
func extraOr(cfg Config, name string, def float64) float64 {
	if v, ok := cfg.Extra[name]; ok {
		return v
	}
	return def
}

// scaled is def, or share × window when the window is too small for it
// (the published defaults are for windows of 200,000 tokens and more).
func scaled(def float64, window int, share float64) float64 {
	return math.Min(def, math.Floor(float64(window)*share))
}

// summaryTarget is Config.TargetChars, else DefaultSummaryTarget, at most
// the window.
func summaryTarget(cfg Config, window int) int {
	if cfg.TargetChars > 0 {
		return cfg.TargetChars
	}
	return min(DefaultSummaryTarget, window)
}
