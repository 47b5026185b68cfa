package mdtext

import (
	"strings"
)

// History is a compact history (compact-history.xml) taken apart into the
// pieces the must-keep items come from.
type History struct {
	// Previous is the earlier briefing inside <previous-chat-history>, raw
	// as the serializer writes it; HasPrevious is false when there is none.
	Previous    string
	HasPrevious bool
	// Turns are the <user> and <assistant> turns in order, unescaped; user
	// turns without their <slash-command> blocks.
	Turns []Turn
}

// Turn is one turn of a compact history.
type Turn struct {
	Role string // "user" or "assistant"
	Text string
}

const (
	prevOpen  = "<previous-chat-history>"
	prevClose = "</previous-chat-history>"
)

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&")

// ParseHistory takes a compact history apart. It follows the serializer's
// layout (spec section 6): an optional <previous-chat-history> block whose
// content is not escaped, then <user> and <assistant> turns whose text is
// escaped and whose user turns may hold <slash-command> blocks with a raw
// CDATA body. Anything it does not recognise is skipped, never an error.
func ParseHistory(s string) History {
	var h History
	if strings.HasPrefix(s, prevOpen) {
		// Turn text is escaped, so the last literal closing tag is the
		// block's own, even if the raw briefing itself holds the tag.
		if end := strings.LastIndex(s, prevClose); end >= len(prevOpen) {
			h.Previous = s[len(prevOpen):end]
			h.HasPrevious = true
			s = s[end+len(prevClose):]
		}
	}
	for len(s) > 0 {
		u := strings.Index(s, "<user>")
		a := strings.Index(s, "<assistant>")
		switch {
		case u < 0 && a < 0:
			return h
		case u >= 0 && (a < 0 || u < a):
			text, rest := userTurn(s[u+len("<user>"):])
			h.Turns = append(h.Turns, Turn{Role: FromUser, Text: text})
			s = rest
		default:
			body := s[a+len("<assistant>"):]
			end := strings.Index(body, "</assistant>")
			if end < 0 {
				h.Turns = append(h.Turns, Turn{Role: FromAssistant, Text: unescaper.Replace(body)})
				return h
			}
			h.Turns = append(h.Turns, Turn{Role: FromAssistant, Text: unescaper.Replace(body[:end])})
			s = body[end+len("</assistant>"):]
		}
	}
	return h
}

// userTurn reads one user turn after its opening tag, dropping slash
// command blocks, and returns its unescaped text and the rest of s.
func userTurn(s string) (text, rest string) {
	var b strings.Builder
	for {
		end := strings.Index(s, "</user>")
		// Only a block that starts before the turn's end matters: search
		// no further (the rest of a long history would make parsing
		// quadratic in its number of turns).
		within := s
		if end >= 0 {
			within = s[:end]
		}
		sc := strings.Index(within, "<slash-command")
		if sc >= 0 {
			b.WriteString(s[:sc])
			close := strings.Index(s[sc:], "]]></slash-command>")
			if close < 0 {
				return unescaper.Replace(b.String()), ""
			}
			s = s[sc+close+len("]]></slash-command>"):]
			s = strings.TrimPrefix(s, "\n")
			continue
		}
		if end < 0 {
			b.WriteString(s)
			return unescaper.Replace(b.String()), ""
		}
		b.WriteString(s[:end])
		return unescaper.Replace(b.String()), s[end+len("</user>"):]
	}
}
