package convo

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/store"
	"github.com/compactlab/compact/internal/strategy"
)

// StagewiseOptions tune ReadStagewise.
type StagewiseOptions struct {
	// ChatIDs chooses the chats, read in the database's order (newest
	// first); an id the database does not hold is a Problem. Empty: every
	// chat that has messages.
	ChatIDs []string
}

// ReadStagewise reads chats of the stagewise database at path the way
// `compact extract` reads them: read-only, in one snapshot, from the
// agentMessages table, each row decoded with history.MessageFromRow. A
// chat whose rows do not decode is skipped with a Problem, as extract
// skips it. The error is about the database as a whole (not found, not an
// agent database, no agentMessages table).
func ReadStagewise(ctx context.Context, path string, opts StagewiseOptions) ([]*History, []Problem, error) {
	snap, err := store.OpenSnapshot(ctx, path)
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	if !snap.HasMessagesTable() {
		return nil, nil, &store.NoMessagesTableError{Path: path, Version: snap.Version()}
	}
	chats, err := snap.Chats(ctx)
	if err != nil {
		return nil, nil, err
	}
	problems := []Problem{}
	explicit := len(opts.ChatIDs) > 0
	chats, missing := store.SelectChats(chats, opts.ChatIDs)
	if len(missing) > 0 {
		// A chosen id that is not there is a typo to fix, not a chat to
		// skip: say so before reading anything.
		return nil, nil, &MissingChatsError{Path: path, IDs: missing}
	}
	var out []*History
	for _, c := range chats {
		rows, err := snap.Messages(ctx, c.ID)
		if err != nil {
			return nil, nil, fmt.Errorf("chat %s: %w", c.ID, err)
		}
		if len(rows) == 0 {
			if explicit {
				problems = append(problems, Problem{Message: fmt.Sprintf("chat %s: no messages; skipped", c.ID)})
			}
			continue
		}
		msgs := make([]history.Value, len(rows))
		bad := ""
		for i, r := range rows {
			if r.PartsNull {
				bad = fmt.Sprintf("chat %s message %d (seq %d): parts is NULL; skipped the chat", c.ID, i, r.Seq)
				break
			}
			m, err := history.MessageFromRow(r.ID, r.Role, r.Parts, r.Metadata, r.MetadataNull)
			if err != nil {
				bad = fmt.Sprintf("chat %s message %d (seq %d): %v; skipped the chat", c.ID, i, r.Seq, err)
				break
			}
			msgs[i] = m
		}
		if bad != "" {
			problems = append(problems, Problem{Message: bad})
			continue
		}
		h := &History{Source: SourceStagewise, Name: c.ID, Title: c.Title, Problems: []Problem{}}
		if d, err := snap.ChatDetails(ctx, c.ID); err == nil {
			h.Model, h.UsedTokens, h.HasUsedTokens = d.ActiveModelID, d.UsedTokens, d.HasUsedTokens
		}
		h.Branch, h.Origin = StagewiseMessages(msgs)
		h.Messages = h.Branch
		if n := len(h.Branch); n > 0 {
			h.Leaf = h.Branch[n-1].ID
		}
		out = append(out, h)
	}
	return out, problems, nil
}

// StagewiseMessages converts decoded stagewise messages (UIMessages:
// {id, role, parts, metadata}) into generic messages, and says for each
// which input message it came from.
//
// Every input message gives one message with Raw pointing to the decoded
// value, StoredSummary set when metadata.compressedHistory is a string,
// Content the text parts joined with "\n" (reasoning, files and other parts
// left out), CreatedAt from metadata.createdAt, and on assistant messages
// one ToolCall per tool part (tool-<name> or dynamic-tool; Arguments the
// input as JSON.stringify writes it). After an assistant message with tool
// parts come one tool message per part, without Raw and marked Synthetic,
// whose Content is the
// part's output as JSON (or {"error": errorText} for output-error,
// {"error": "denied"} for output-denied, {"state": state} when there is no
// output yet), so that strategies built on OpenAI-shaped histories run on
// stagewise chats too. The stagewise strategy reads Raw and skips the
// synthetic messages; History.RawOnly leaves them out altogether.
func StagewiseMessages(msgs []history.Value) (out []strategy.Message, origin []int) {
	for i := range msgs {
		v := &msgs[i]
		m := strategy.Message{Raw: v}
		if id := v.Get("id"); id.Kind() == history.String {
			m.ID = id.Str()
		} else {
			m.ID = fmt.Sprintf("#%d", i)
		}
		m.Role = history.Role(*v)
		if s := history.CompressedHistory(*v); s.Kind() == history.String {
			text := s.Str()
			m.StoredSummary = &text
		}
		if meta := history.Metadata(*v); !meta.IsNullish() {
			if d := meta.Get("createdAt"); d.Kind() == history.Date && !math.IsNaN(d.Num()) {
				m.CreatedAt = time.UnixMilli(int64(d.Num())).UTC()
			}
		}
		var texts []string
		var results []strategy.Message
		for k, p := range v.Get("parts").Elems() {
			if p.IsNullish() {
				continue
			}
			typ := p.Get("type")
			if typ.Kind() != history.String {
				continue
			}
			t := typ.Str()
			switch {
			case t == "text":
				texts = append(texts, history.ToString(p.Get("text")))
				continue
			case strings.HasPrefix(t, "tool-"), t == "dynamic-tool":
			default:
				continue
			}
			if m.Role != strategy.RoleAssistant {
				continue
			}
			name := strings.TrimPrefix(t, "tool-")
			if t == "dynamic-tool" {
				name = history.ToString(p.Get("toolName"))
			}
			callID := ""
			if id := p.Get("toolCallId"); id.Kind() == history.String && id.Str() != "" {
				callID = id.Str()
			} else {
				callID = fmt.Sprintf("%s:%d", m.ID, k)
			}
			args, _, _ := history.JSONStringify(p.Get("input"))
			m.ToolCalls = append(m.ToolCalls, strategy.ToolCall{ID: callID, Name: name, Arguments: args})
			results = append(results, strategy.Message{
				ID:         m.ID + "/" + callID,
				Role:       strategy.RoleTool,
				Synthetic:  true,
				Content:    toolOutput(p),
				ToolCallID: callID,
				CreatedAt:  m.CreatedAt,
			})
		}
		m.Content = strings.Join(texts, "\n")
		out = append(out, m)
		origin = append(origin, i)
		for _, r := range results {
			out = append(out, r)
			origin = append(origin, i)
		}
	}
	return out, origin
}

// toolOutput is the content of the tool message made from a tool part.
func toolOutput(p history.Value) string {
	state := ""
	if s := p.Get("state"); s.Kind() == history.String {
		state = s.Str()
	}
	if out := p.Get("output"); !out.IsUndefined() && state != "output-error" && state != "output-denied" {
		if s, ok, err := history.JSONStringify(out); ok && err == nil {
			return s
		}
	}
	obj := history.NewObject()
	switch state {
	case "output-error":
		text := "unknown error"
		if e := p.Get("errorText"); e.Truthy() {
			text = history.ToString(e)
		}
		obj.Set("error", history.StringValue(text))
	case "output-denied":
		obj.Set("error", history.StringValue("denied"))
	default:
		obj.Set("state", history.StringValue(state))
	}
	s, _, _ := history.JSONStringify(obj)
	return s
}

// MissingChatsError says which chosen chat ids the database does not hold.
type MissingChatsError struct {
	Path string
	IDs  []string
}

func (e *MissingChatsError) Error() string {
	what := "no such chat"
	if len(e.IDs) > 1 {
		what = "no such chats"
	}
	return fmt.Sprintf("%s in %s: %s", what, e.Path, strings.Join(e.IDs, ", "))
}
