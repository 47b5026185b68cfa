package bundle

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
)

// TestUpstreamMetadataInvalidUTF8: chatId and chatTitle, SQLite TEXT the upstream
// decodes with U+FFFD, come out as valid JSON with the replacements; a
// NULL title stays null; other strings are left alone.
func TestUpstreamMetadataInvalidUTF8(t *testing.T) {
	m := UpstreamMetadata{
		ChatID:            "id\xff",
		ChatTitle:         history.StringValue("T\xe2\x82 \xed\xa0\x80!"),
		Channel:           "prerelease",
		BoundaryMessageID: history.StringValue("m1"),
	}
	b := m.AppendJSON(nil)
	if !json.Valid(b) || !utf8.Valid(b) {
		t.Fatalf("invalid JSON or UTF-8:\n%s", b)
	}
	want := "{\n  \"chatId\": \"id\uFFFD\",\n  \"chatTitle\": \"T\uFFFD \uFFFD\uFFFD\uFFFD!\",\n  \"channel\": \"prerelease\","
	if !bytes.HasPrefix(b, []byte(want)) {
		t.Errorf("got\n%s\nwant prefix\n%s", b, want)
	}
	m.ChatTitle = history.NullValue()
	if b := m.AppendJSON(nil); !bytes.Contains(b, []byte("\"chatTitle\": null,")) {
		t.Errorf("NULL title: %s", b)
	}
}

// TestMetadataReadsEveryWriter: what the readers read of each writer's
// metadata.json; e3e is told by slashIdsResolved, an agent's bundle by
// auditable.
func TestMetadataReadsEveryWriter(t *testing.T) {
	up := UpstreamMetadata{ChatID: "c", ChatTitle: history.NullValue(), CompressionNumber: 2, BoundaryMessageIndex: 7,
		BoundaryMessageID: history.UndefinedValue(), PreviousCompressionIndex: 3, PreviousCompressionSize: 120, HasSlash: true}
	md, err := ParseMetadata(up.AppendJSON(nil))
	if err != nil || md.ChatID != "c" || md.ChatTitle != "" || md.CompressionNumber != 2 || *md.BoundaryMessageIndex != 7 ||
		*md.PreviousCompressionIndex != 3 || *md.PreviousCompressionSize != 120 || !md.HasSlash() {
		t.Errorf("upstream: %+v, %v", md, err)
	}
	if ok, why := md.IsAuditable(); !ok || why != "" {
		t.Errorf("a stagewise bundle is auditable: %v %q", ok, why)
	}
	up.HasSlash, up.PreviousCompressionIndex, up.PreviousCompressionSize = false, -1, 0
	if md, _ := ParseMetadata(up.AppendJSON(nil)); md.HasSlash() || md.PreviousCompressionIndex != nil || md.PreviousCompressionSize != nil {
		t.Errorf("head profile, no previous: %+v", md)
	}
	ag := AgentMetadata{Agent: "codex", ChatID: "s", CompressionNumber: 1, Unauditable: "encrypted", RecordedCompactionUsage: &TokenUsage{Input: 5, Output: 2}}
	data := ag.JSON()
	if !bytes.HasPrefix(data, []byte("{\n  \"agent\": \"codex\",\n  \"chatId\": \"s\",")) || !bytes.Contains(data, []byte(`"recordedCompactionUsage": {
    "input": 5,
    "output": 2
  },`)) {
		t.Errorf("agent metadata:\n%s", data)
	}
	md, err = ParseMetadata(data)
	if ok, why := md.IsAuditable(); err != nil || ok || why != "encrypted" || md.HasSlash() {
		t.Errorf("agent: %v %q %v", ok, why, err)
	}
}
