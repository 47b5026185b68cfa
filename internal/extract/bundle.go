package extract

import (
	"bytes"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/serialize"
)

// Bundle file names.
const (
	FileSystemPrompt  = "system-prompt.md"
	FileUserMessage   = "user-message.md"
	FileCompact       = "compact-history.xml"
	FileActualOutput  = "actual-output.md"
	FileMetadata      = "metadata.json"
	FileReplayPrefix  = "replay-"
	BundleFileCount   = 5
	metadataIndent    = "  "
	previousTagMarker = serialize.PrevOpen
)

// Metadata is metadata.json of one bundle, in the upstream key order.
//
// ChatID and ChatTitle hold the bytes of the agentInstances TEXT columns as
// SQLite stores them; AppendJSON decodes them as the upstream does (see
// TextColumn), so invalid UTF-8 in them comes out as U+FFFD.
type Metadata struct {
	ChatID                          string
	ChatTitle                       history.Value // string, or null for a NULL title
	Channel                         string
	CompressionNumber               int
	TotalCompressions               int
	TotalChatMessages               int
	BoundaryMessageIndex            int
	BoundaryMessageID               history.Value // undefined drops the key, as JSON.stringify does
	TotalMessagesInSlice            int
	SerializedMessageCount          int
	PreviousCompressionIndex        int // -1: null
	PreviousCompressionSize         int // 0: null
	CompactHistoryChars             int
	UserMessageChars                int
	ActualOutputChars               int
	ActualOutputIncludesPreviousTag bool
	// SlashIdsResolved is written only when HasSlash (the e3e profile).
	HasSlash         bool
	SlashIdsResolved []serialize.Resolution
}

// AppendJSON writes m as JSON.stringify(m, null, 2) does.
func (m *Metadata) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, "\n  \""...)
		b = append(b, k...)
		b = append(b, "\": "...)
	}
	str := func(k, v string) {
		key(k)
		b, _ = history.AppendJSON(b, history.StringValue(v))
	}
	val := func(k string, v history.Value) {
		if v.IsUndefined() {
			return
		}
		key(k)
		out, err := history.AppendJSON(b, v)
		if err != nil {
			out = append(b, "null"...)
		}
		b = out
	}
	num := func(k string, n int) {
		key(k)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	numOrNull := func(k string, n int, isNull bool) {
		key(k)
		if isNull {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendInt(b, int64(n), 10)
		}
	}
	str("chatId", TextColumn(m.ChatID))
	title := m.ChatTitle
	if title.Kind() == history.String {
		if t := title.Str(); !utf8.ValidString(t) {
			title = history.StringValue(TextColumn(t))
		}
	}
	val("chatTitle", title)
	str("channel", m.Channel)
	num("compressionNumber", m.CompressionNumber)
	num("totalCompressions", m.TotalCompressions)
	num("totalChatMessages", m.TotalChatMessages)
	num("boundaryMessageIndex", m.BoundaryMessageIndex)
	val("boundaryMessageId", m.BoundaryMessageID)
	num("totalMessagesInSlice", m.TotalMessagesInSlice)
	num("serializedMessageCount", m.SerializedMessageCount)
	numOrNull("previousCompressionIndex", m.PreviousCompressionIndex, m.PreviousCompressionIndex < 0)
	numOrNull("previousCompressionSize", m.PreviousCompressionSize, m.PreviousCompressionSize == 0)
	num("compactHistoryChars", m.CompactHistoryChars)
	num("userMessageChars", m.UserMessageChars)
	num("actualOutputChars", m.ActualOutputChars)
	key("actualOutputIncludesPreviousTag")
	b = strconv.AppendBool(b, m.ActualOutputIncludesPreviousTag)
	if m.HasSlash {
		key("slashIdsResolved")
		if len(m.SlashIdsResolved) == 0 {
			b = append(b, "[]"...)
		} else {
			b = append(b, '[')
			for i, r := range m.SlashIdsResolved {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, "\n    {\n      \"id\": "...)
				b, _ = history.AppendJSON(b, history.StringValue(r.ID))
				b = append(b, ",\n      \"resolved\": "...)
				b = strconv.AppendBool(b, r.Resolved)
				b = append(b, "\n    }"...)
			}
			b = append(b, "\n  ]"...)
		}
	}
	return append(b, "\n}"...)
}

// TextColumn is the JavaScript string the upstream script holds for the
// bytes s of a SQLite TEXT column. It reads the columns through the sqlite3
// CLI (json_object copies the bytes as they are) and decodes the output
// with Buffer.toString(), Node's UTF-8 decoder, which follows the WHATWG
// decoder: every maximal subpart of an ill-formed sequence (Unicode's
// "substitution of maximal subparts") becomes one U+FFFD. A surrogate
// encoded in UTF-8 (ED A0..BF xx) is ill-formed: ED is a subpart of its own,
// so such a triple gives three U+FFFD. Valid text is returned as it is.
//
// Go's strings.ToValidUTF8 (one U+FFFD for a whole run of bad bytes) and
// utf8.DecodeRune (one per byte) both differ from this.
func TextColumn(s string) string { return history.ToValidUTF8(s) }

// writeFile writes data to dir/name, as Node writes a string: lone
// surrogates become U+FFFD. mayLone false says data holds none.
func writeFile(dir, name string, data []byte, mayLone bool) error {
	if mayLone && bytes.IndexByte(data, 0xED) >= 0 && history.HasLoneSurrogate(string(data)) {
		data = []byte(history.ToWellFormed(string(data)))
	}
	return createFile(filepath.Join(dir, name), data)
}
