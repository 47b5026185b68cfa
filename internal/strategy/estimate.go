package strategy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"

	"github.com/compactlab/compact/internal/history"
)

// Token estimators. Every strategy measures with its own estimator unless
// Config.Tokenizer names a tiktoken vocabulary, which then replaces it:
//
//   - stagewise: the upstream estimateMessageTokens (internal/estimate:
//     UTF-16 characters / 4 over text parts, whole-part JSON for the rest,
//     400 characters of metadata overhead plus the briefing the message
//     carries) for messages read from a stagewise database (Raw set). A
//     message of a generic history (Raw nil) has no stagewise metadata, so
//     it is counted as ceil(len16(content + JSON of each tool call +
//     the briefing it carries) / 4) + GenericOverhead.
//   - onyx: ceil(len16(content) / 4) + ceil(len16(arguments) / 4) per tool
//     call, no per-message overhead (Onyx counts a message's token_count and
//     its tool-call arguments). Onyx counts with the tokenizer of its
//     embedding model (nomic-embed-text-v1 by default), which we do not
//     have: characters / 4 stands in for it.
//   - sliding-window, selective-prune, summary-buffer: YourGPT's fast
//     estimate, ceil(len16(content + JSON of each tool call) / 3.5) + 4.
//
// With a tokenizer ("o200k" or "cl100k", vocabularies compiled into
// github.com/tiktoken-go/tokenizer, no network), the same pieces of text are
// counted with that vocabulary, each piece separately, plus
// TokenizerOverhead per message (role and framing); a stagewise Raw message
// is its text parts plus the JSON of its other parts plus the <memory>
// text of the briefing it carries. Onyx keeps its no-overhead rule.

// GenericOverhead is the per-message overhead, in tokens, of a generic
// message under the stagewise estimator (the upstream 400-character
// metadata overhead is stagewise's own metadata, which such a message does
// not have).
const GenericOverhead = 4

// TokenizerOverhead is the per-message overhead, in tokens, added to a
// tiktoken count (what the chat format spends on the role and framing).
const TokenizerOverhead = 4

// Tokenizers lists the names Config.Tokenizer accepts besides "".
var Tokenizers = []string{"o200k", "cl100k"}

// counter counts text with a tiktoken vocabulary; a nil *counter means the
// strategy's own estimator.
type counter struct {
	mu    sync.Mutex
	codec tokenizer.Codec
}

// newCounter returns the counter for Config.Tokenizer ("" gives nil).
func newCounter(name string) (*counter, error) {
	var enc tokenizer.Encoding
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "":
		return nil, nil
	case "o200k", "o200k_base":
		enc = tokenizer.O200kBase
	case "cl100k", "cl100k_base":
		enc = tokenizer.Cl100kBase
	default:
		return nil, fmt.Errorf("unknown tokenizer %q (want %s)", name, strings.Join(Tokenizers, " or "))
	}
	// A codec per counter: the vocabulary is loaded once per process by
	// the library, the codec itself is cheap, and a counter is used by one
	// simulation only (the mutex covers a strategy used concurrently).
	c, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	c.SetErrorMode(tokenizer.ErrorModeReplace)
	return &counter{codec: c}, nil
}

// count is the number of tokens of s.
func (c *counter) count(s string) float64 {
	if s == "" {
		return 0
	}
	c.mu.Lock()
	n, err := c.codec.Count(s)
	c.mu.Unlock()
	if err != nil {
		// ErrorModeReplace does not fail on bad UTF-8; fall back anyway.
		return math.Ceil(float64(history.Len16(s)) / 4)
	}
	return float64(n)
}

// toolCallJSON is JSON.stringify of a tool call in the OpenAI shape the
// agents send: {"id","type":"function","function":{"name","arguments"}}.
func toolCallJSON(tc ToolCall) string {
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	writeJSONString(&b, tc.ID)
	b.WriteString(`,"type":"function","function":{"name":`)
	writeJSONString(&b, tc.Name)
	b.WriteString(`,"arguments":`)
	writeJSONString(&b, tc.Arguments)
	b.WriteString(`}}`)
	return b.String()
}

// writeJSONString writes s as a JSON string the way JSON.stringify does
// (no HTML escaping).
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // the encoder's newline
}

// marshalJS is JSON.stringify of v for the plain data this package builds:
// no HTML escaping, no trailing newline.
func marshalJS(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toolCallsLen16 is the UTF-16 length of the JSON of m's tool calls
// (toolCallJSON's), measured without writing it: every message of a
// history is measured, and building the JSON of each call only to measure
// it was most of the work of a long simulation.
func toolCallsLen16(m *Message) int {
	const fixed = len(`{"id":`) + len(`,"type":"function","function":{"name":`) + len(`,"arguments":`) + len(`}}`)
	n := 0
	for _, tc := range m.ToolCalls {
		n += fixed + jsonStringLen16(tc.ID) + jsonStringLen16(tc.Name) + jsonStringLen16(tc.Arguments)
	}
	return n
}

// jsonStringLen16 is the UTF-16 length of s written as a JSON string by
// writeJSONString (encoding/json without HTML escaping), quotes included:
// '"' and '\\' and \b \f \n \r \t take 2, other control characters 6
// (\u00XX), U+2028, U+2029 and each invalid byte 6 (\u2028, \ufffd),
// a rune above U+FFFF 2, any other 1.
func jsonStringLen16(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		case r > 0xFFFF:
			n += 2
		default:
			n++
		}
		i += size
	}
	return n
}

// yourgptTokens is YourGPT's estimateMessageTokens for a message whose
// content is content (after any rewrite) and whose tool calls are m's.
func yourgptTokens(c *counter, content string, m *Message) float64 {
	if c != nil {
		t := c.count(content)
		for _, tc := range m.ToolCalls {
			t += c.count(toolCallJSON(tc))
		}
		return t + TokenizerOverhead
	}
	chars := history.Len16(content) + toolCallsLen16(m)
	return math.Ceil(float64(chars)/3.5) + 4
}

// yourgptText is the estimate of a message holding only text s (the
// working memory and summary messages).
func yourgptText(c *counter, s string) float64 {
	if c != nil {
		return c.count(s) + TokenizerOverhead
	}
	return math.Ceil(float64(history.Len16(s))/3.5) + 4
}

// onyxText is Onyx's count of a text: characters / 4, rounded up.
func onyxText(c *counter, s string) float64 {
	if c != nil {
		return c.count(s)
	}
	return math.Ceil(float64(history.Len16(s)) / 4)
}

// onyxTokens is a message's cost in Onyx: its text plus its tool calls'
// arguments (tool_call_tokens counts arguments only).
func onyxTokens(c *counter, content string, m *Message) float64 {
	t := onyxText(c, content)
	for _, tc := range m.ToolCalls {
		t += onyxText(c, tc.Arguments)
	}
	return t
}

// genericStagewiseTokens is the stagewise estimate of a Raw-less message
// carrying briefing ("" when none).
func genericStagewiseTokens(c *counter, m *Message, briefing string) float64 {
	if c != nil {
		t := c.count(m.Content)
		for _, tc := range m.ToolCalls {
			t += c.count(toolCallJSON(tc))
		}
		if briefing != "" {
			t += c.count(memoryText(briefing))
		}
		return t + TokenizerOverhead
	}
	chars := history.Len16(m.Content) + toolCallsLen16(m) + history.Len16(briefing)
	return math.Ceil(float64(chars)/4) + GenericOverhead
}

// memoryText is how the stagewise consumer sends a briefing: a text part on
// the boundary message.
func memoryText(briefing string) string {
	return "<memory><![CDATA[" + briefing + "]]></memory>"
}

// rawTokenizerTokens counts a stagewise message with a tokenizer: its text
// parts, the JSON of its other parts, and the briefing it carries as the
// <memory> text.
func rawTokenizerTokens(c *counter, v history.Value, briefing string) float64 {
	t := 0.0
	for _, p := range v.Get("parts").Elems() {
		if p.Get("type").Str() == "text" && p.Get("type").Kind() == history.String {
			if tx := p.Get("text"); tx.Kind() == history.String {
				t += c.count(tx.Str())
			}
			continue
		}
		if s, ok, err := history.JSONStringify(p); err == nil && ok {
			t += c.count(s)
		}
	}
	if briefing != "" {
		t += c.count(memoryText(briefing))
	}
	return t + TokenizerOverhead
}

func sumTokens(ts []float64) float64 {
	s := 0.0
	for _, t := range ts {
		s += t
	}
	return s
}
