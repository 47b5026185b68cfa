package agents

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/testfiles"
)

// realClaudeCode are real Claude Code sessions from the entireio/cli
// checkpoint corpus (MIT; see testdata/agents/README.md), one or more per
// version that changed the file's shape: 2.0.76 (no progress records),
// 2.1.7, then 2.1.14 and later, where progress records are links of the
// parentUuid chain, some boundaries' logical parents were never written,
// and a later compaction's missing parent detaches the earlier one.
var realClaudeCode = []string{
	"2.0.76-a6-e4c2a0fbd1-0.jsonl.gz",
	"2.1.7-d7-0360ee0899-0.jsonl.gz",
	"2.1.14-4b-7d5121b42a-0.jsonl.gz",
	"2.1.20-25-730c662552-0.jsonl.gz",
	"2.1.29-5b-5a73f2998f-0.jsonl.gz",
	"2.1.39-9b-04c3d92e38-2.jsonl.gz",
	"2.1.42-ed-51f6581660-0.jsonl.gz",
}

// gunzip reads a gzipped testdata file.
func gunzip(t testing.TB, rel string) []byte {
	t.Helper()
	return testfiles.Gunzip(t, filepath.Join(testdata, rel))
}

// rawRecord is what the test reads of a record by itself, with
// encoding/json, to check the reader against.
type rawRecord struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          json.RawMessage `json:"message"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
}

// rawRecords decodes every record of data, two on a line included.
func rawRecords(t *testing.T, data []byte) []rawRecord {
	t.Helper()
	var out []rawRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var r rawRecord
		if err := dec.Decode(&r); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// TestRealClaudeCodeSessions: every compaction a real session records is
// found, with its trigger, its preTokens and its summary byte for byte,
// and with a non-empty history before it; every user and assistant
// record of the main side is on the thread (none is read as another
// branch), whatever the version.
func TestRealClaudeCodeSessions(t *testing.T) {
	for _, name := range realClaudeCode {
		t.Run(name, func(t *testing.T) {
			data := gunzip(t, filepath.Join("claude-code", "entire", name))
			s, err := ReadClaudeCode(bytes.NewReader(data), name)
			if err != nil {
				t.Fatal(err)
			}
			recs := rawRecords(t, data)
			type want struct {
				trigger   string
				preTokens int64
				summary   string
			}
			var wants []want
			summaryOf := map[string]string{}
			for _, r := range recs {
				if r.IsCompactSummary {
					var m struct {
						Content json.RawMessage `json:"content"`
					}
					if err := json.Unmarshal(r.Message, &m); err != nil {
						t.Fatal(err)
					}
					var text string
					if json.Unmarshal(m.Content, &text) != nil {
						var blocks []struct{ Type, Text string }
						if err := json.Unmarshal(m.Content, &blocks); err != nil {
							t.Fatal(err)
						}
						var parts []string
						for _, b := range blocks {
							if b.Type == "text" {
								parts = append(parts, b.Text)
							}
						}
						text = strings.Join(parts, "\n")
					}
					summaryOf[r.ParentUUID] = text
				}
			}
			seen := map[string]bool{}
			for _, r := range recs {
				if r.UUID == "" || seen[r.UUID] || r.IsSidechain {
					continue
				}
				seen[r.UUID] = true
				if r.Subtype == "compact_boundary" {
					wants = append(wants, want{r.CompactMetadata.Trigger, r.CompactMetadata.PreTokens, summaryOf[r.UUID]})
				}
			}
			// A file copied from the middle of a session says so.
			var firstParent string
			for _, r := range recs {
				if r.UUID != "" {
					firstParent = r.ParentUUID
					break
				}
			}
			if mid := firstParent != "" && !seen[firstParent]; mid != (s.Partial != "") {
				t.Errorf("the file starts mid-session: %v; Partial %q", mid, s.Partial)
			}
			if len(wants) == 0 {
				t.Fatal("the test file records no compaction")
			}
			if len(s.Compactions) != len(wants) {
				t.Fatalf("%d compactions read, the file records %d (problems %v)", len(s.Compactions), len(wants), s.Problems)
			}
			prev := 0
			for i, c := range s.Compactions {
				w := wants[i]
				if c.Trigger != w.trigger || c.PreTokens != w.preTokens || !c.HasSummary || c.Summary != w.summary || c.Unauditable != "" {
					t.Errorf("compaction %d: %+v, want %+v", i+1, c, w)
				}
				if c.Index <= prev && !(i == 0 && c.Index > 0) {
					t.Errorf("compaction %d at message %d: no history before it (previous at %d)", i+1, c.Index, prev)
				}
				prev = c.Index
			}
			// Every user and assistant record of the main side is read
			// (as a message, a part of one, a summary or a meta record):
			// none is left as another branch.
			for _, p := range s.Problems {
				if strings.Contains(p.Message, "other branches") {
					t.Errorf("a record of the main side read as another branch: %v", p)
				}
			}
		})
	}
}

// TestRealClaudeCodeUnwrittenParents: in a 2.1.20 session the second
// boundary's logical parent was never written, which used to detach the
// first compaction and everything before it; it is said once, and both
// compactions are found with their histories.
func TestRealClaudeCodeUnwrittenParents(t *testing.T) {
	name := "2.1.20-25-730c662552-0.jsonl.gz"
	s, err := ReadClaudeCode(bytes.NewReader(gunzip(t, filepath.Join("claude-code", "entire", name))), name)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Compactions) != 2 || s.Compactions[0].Line != 372 || s.Compactions[1].Line != 801 {
		t.Fatalf("compactions %+v", s.Compactions)
	}
	said := 0
	for _, p := range s.Problems {
		if strings.Contains(p.Message, "never written") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("unwritten parents said %d times: %v", said, s.Problems)
	}
	if s.Compactions[0].Index < 20 || s.Compactions[1].Index-s.Compactions[0].Index < 20 {
		t.Errorf("histories too short: %d, %d", s.Compactions[0].Index, s.Compactions[1].Index)
	}
}
