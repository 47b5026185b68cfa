package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/strategy"
	"github.com/compactlab/compact/internal/testfiles"
)

// groundedCfg makes summary-buffer compact once on the grounded
// histories, at step 6 (m13), summarizing m02…m12.
var groundedCfg = strategy.Config{ContextWindow: 900, Reserved: 1, RecentBuffer: 1}

func groundedRun(t *testing.T, file string, names []string, cfg strategy.Config, sum strategy.Summarizer) *Report {
	t.Helper()
	in, _, err := ReadJSONL(file, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []*Input{in}, Options{Strategies: names, Compare: len(names) > 1, SummarizerName: "builtin", Base: cfg, Summarizer: sum})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// namingFiles is the builtin summarizer, with a line naming the files
// the summarized messages read or changed.
type namingFiles struct{}

func (namingFiles) Summarize(ctx context.Context, req strategy.SummaryRequest) (string, error) {
	text, err := strategy.Builtin{}.Summarize(ctx, req)
	return text + "\nFiles: src/parser.go", err
}

// probeRow is the row of strategy name in the text of the probe table.
func probeRow(t *testing.T, rep *Report, name string) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(b.String(), "offline probe scores of what each compaction replaced")
	if !ok {
		t.Fatalf("no probe table:\n%s", b.String())
	}
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return strings.Join(f, " ")
		}
	}
	t.Fatalf("no row %s in\n%s", name, table)
	return ""
}

// TestGroundedFileTheAgentWentBackTo: testdata/grounded-back.jsonl is
// testdata/probes.jsonl (the agent reads and edits src/parser.go) and
// then a new request that makes the agent read and edit src/parser.go
// again (m14…m19). Summary-buffer compacts m02…m12 at m13: the builtin
// rule summary names the tools, not the file, so its one grounded probe
// (the file the agent went back to) is lost and it scores 0; a
// selective prune keeps the read's marker in the view and scores 1; and
// the same summary with a line naming the file scores 1.
func TestGroundedFileTheAgentWentBackTo(t *testing.T) {
	rep := groundedRun(t, "testdata/grounded-back.jsonl", []string{strategy.NameSummaryBuffer, strategy.NameSelectivePrune}, groundedCfg, nil)
	sb, sp := rep.rows[0], rep.rows[1]
	if len(sb.Summaries) != 1 || sb.Summaries[0].Step != 6 || sb.Summaries[0].Replaced != ReplacedSummarized {
		t.Fatalf("summary-buffer compactions %+v", sb.Summaries)
	}
	g := sb.Summaries[0].Grounded
	if g == nil {
		t.Fatal("summary-buffer: not measurable")
	}
	if g.Probes != 1 || g.Kept != 0 || g.Score != 0 || len(g.Lost) != 1 || g.Lost[0].Kind != eval.KindFileUsed || g.Lost[0].Expected[0] != "src/parser.go" {
		t.Errorf("summary-buffer grounded %+v", g)
	}
	if k := g.Kinds[eval.KindFileUsed]; k != (eval.Tally{Kept: 0, Total: 1}) || len(g.Kinds) != len(eval.GroundedKinds) {
		t.Errorf("kinds %+v", g.Kinds)
	}
	// The summarizer's target: summary-buffer's own, none set.
	if g.Target != strategy.YourGPTSummaryTarget || g.Chars == 0 || g.SizeCharge != 1 {
		t.Errorf("target %d, %d chars, charge %v", g.Target, g.Chars, g.SizeCharge)
	}
	if p := sb.Probes; p.Measurable != 1 || p.Grounded == nil || *p.Grounded != 0 || p.GroundedProbes != (eval.Tally{Kept: 0, Total: 1}) {
		t.Errorf("summary-buffer totals %+v", p)
	}
	if p := sp.Probes; p == nil || p.Measurable != 1 || p.Grounded == nil || *p.Grounded != 1 {
		t.Errorf("selective-prune totals %+v", p)
	} else if s := sp.Summaries[0]; s.Replaced != ReplacedPruned || s.Grounded.Target != 0 {
		t.Errorf("selective-prune compaction %+v", s)
	}
	if got := probeRow(t, rep, "summary-buffer"); !strings.HasSuffix(got, " 0.000 1") {
		t.Errorf("summary-buffer row %q", got)
	}
	if got := probeRow(t, rep, "selective-prune"); !strings.HasSuffix(got, " 1.000 1") {
		t.Errorf("selective-prune row %q", got)
	}

	// The same compaction with a summary that names the file, and a
	// target the configuration sets.
	cfg := groundedCfg
	cfg.TargetChars = 5000
	rep = groundedRun(t, "testdata/grounded-back.jsonl", []string{strategy.NameSummaryBuffer}, cfg, namingFiles{})
	s := rep.runs[0].probes
	if len(s) != 1 || s[0].Step != 6 || s[0].Grounded == nil {
		t.Fatalf("compactions %+v", s)
	}
	if g := s[0].Grounded; g.Probes != 1 || g.Kept != 1 || g.Score != 1 || len(g.Lost) != 0 || g.Target != 5000 {
		t.Errorf("naming the file: grounded %+v", g)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "; grounded 1.000 (1 of 1 measurable)\n") {
		t.Errorf("timeline:\n%s", b.String())
	}
}

// TestGroundedNotMeasurable: testdata/grounded-none.jsonl goes on after
// the same compaction with a question that has nothing to do with the
// work before it: the compaction has coverage probes but no grounded
// one, and the strategy's grounded score is n/a, never 1.000.
func TestGroundedNotMeasurable(t *testing.T) {
	rep := groundedRun(t, "testdata/grounded-none.jsonl", []string{strategy.NameSummaryBuffer, strategy.NameStagewise}, groundedCfg, nil)
	for _, row := range rep.rows {
		if row.Probes == nil || row.Probes.Scored == 0 || row.Probes.Overall.Total == 0 {
			t.Fatalf("%s: no coverage probes: %+v", row.Strategy, row.Probes)
		}
		for _, s := range row.Summaries {
			if s.Grounded != nil {
				t.Errorf("%s step %d: grounded %+v", row.Strategy, s.Step, s.Grounded)
			}
		}
		if p := row.Probes; p.Measurable != 0 || p.Grounded != nil || p.GroundedProbes.Total != 0 {
			t.Errorf("%s totals %+v", row.Strategy, p)
		}
		if got := probeRow(t, rep, row.Strategy); !strings.HasSuffix(got, " n/a 0") {
			t.Errorf("row %q", got)
		}
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Rows []struct {
			Probes    map[string]json.RawMessage
			Summaries []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(js.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	for _, row := range v.Rows {
		if string(row.Probes["grounded"]) != "null" || string(row.Probes["groundedMeasurable"]) != "0" || string(row.Summaries[0]["grounded"]) != "null" {
			t.Errorf("json: %s", js.String())
		}
	}
}

// TestGroundedOf: the probes of what the agent used next, less those the
// messages kept verbatim hold too, scored within the target.
func TestGroundedOf(t *testing.T) {
	compacted := "<user>Fix the parser.</user>\n<assistant>[read: src/parser.go]\n[read: src/lexer.go]</assistant>"
	cont := "<assistant>[edited: src/parser.go]\n[edited: src/lexer.go]</assistant>"
	g := groundedOf(compacted, cont, "", "", 0)
	if g == nil || g.Probes != 2 || g.Kept != 0 || g.Score != 0 || len(g.Lost) != 2 {
		t.Fatalf("an empty text: %+v", g)
	}
	// The kept messages read the lexer: only the parser is the text's.
	g = groundedOf(compacted, cont, "<assistant>[read: src/lexer.go]</assistant>", "Read src/parser.go.", 0)
	if g == nil || g.Probes != 1 || g.Kept != 1 || g.Score != 1 {
		t.Fatalf("the lexer kept verbatim: %+v", g)
	}
	// Both kept verbatim: nothing is the text's.
	if g := groundedOf(compacted, cont, "<assistant>[read: src/lexer.go]\n[read: src/parser.go]</assistant>", "", 0); g != nil {
		t.Errorf("both kept verbatim: %+v", g)
	}
	// Past the target a file does not count, and the size is charged.
	text := strings.Repeat("x", 40) + " src/parser.go src/lexer.go"
	g = groundedOf(compacted, cont, "", text, 40)
	if g == nil || g.Kept != 0 || g.Target != 40 || math.Abs(g.SizeCharge-(2-float64(len(text))/40)) > 1e-9 {
		t.Errorf("past the target: %+v", g)
	}
	if g := groundedOf(compacted, cont, "", text, 0); g == nil || g.Kept != 2 || g.Score != 1 {
		t.Errorf("no target: %+v", g)
	}
	if g := groundedOf(compacted, "", "", text, 0); g != nil {
		t.Errorf("no continuation: %+v", g)
	}
}

// TestGroundedContinuationEndsAtTheNextCompaction: a sliding window that
// drops at every step scores each drop on what the agent did up to the
// next one only.
func TestGroundedContinuationEndsAtTheNextCompaction(t *testing.T) {
	msgs := []strategy.Message{
		{ID: "0", Role: strategy.RoleUser, Content: "a"},
		{ID: "1", Role: strategy.RoleAssistant, Content: "b"},
		{ID: "2", Role: strategy.RoleUser, Content: "c"},
		{ID: "3", Role: strategy.RoleAssistant, Content: "d"},
		{ID: "4", Role: strategy.RoleTool, ToolCallID: "x", Content: "out"},
		{ID: "5", Role: strategy.RoleAssistant, Content: "e"},
	}
	got := func(from, to int) string {
		var ids []string
		for _, m := range after(msgs, nil, from, to) {
			ids = append(ids, m.ID)
		}
		return strings.Join(ids, ",")
	}
	if g := got(1, 3); g != "2,3" {
		t.Errorf("to the next compaction: %q", g)
	}
	if g := got(3, -1); g != "4,5" {
		t.Errorf("to the end: %q", g)
	}
	if g := got(5, -1); g != "" {
		t.Errorf("after the last: %q", g)
	}
	// The chat's own messages at 0, 1, 3 of a branch with tool messages.
	if g := strings.Join(func() []string {
		var ids []string
		for _, m := range after(msgs, []int{0, 1, 3}, 1, 2) {
			ids = append(ids, m.ID)
		}
		return ids
	}(), ","); g != "2,3" {
		t.Errorf("mapped: %q", g)
	}
	if c := continuation(msgs[3:], nil, "", nil); !strings.Contains(c, "<tool-output>out</tool-output>") {
		t.Errorf("continuation %q", c)
	}
}

// TestGroundedRealClaudeCodeSession: a real Claude Code session (2.1.20,
// entireio/cli's corpus, MIT) run as README.md shows it gives grounded
// scores: some compactions are measurable, every figure is consistent,
// and the builtin summaries lose something the agent used next.
func TestGroundedRealClaudeCodeSession(t *testing.T) {
	data := testfiles.Gunzip(t, filepath.Join(agentsData, "claude-code", "entire", "2.1.20-25-730c662552-0.jsonl.gz"))
	in, _, err := ReadFile("-", "", bytes.NewReader(data), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{strategy.NameStagewise, strategy.NameObservationMasking, strategy.NameToolClearing, strategy.NamePruneSummarize, strategy.NameSummaryBuffer}
	rep, err := Run(context.Background(), []*Input{in}, Options{Strategies: names, Compare: true, SummarizerName: "builtin",
		Base: strategy.Config{Tokenizer: "o200k"}, RecordedOverhead: true})
	if err != nil {
		t.Fatal(err)
	}
	measured, lossy := 0, false
	for _, row := range rep.rows {
		p := row.Probes
		if p == nil {
			t.Fatalf("%s: nothing scored", row.Strategy)
		}
		n, sum := 0, 0.0
		for _, s := range row.Summaries {
			g := s.Grounded
			if g == nil {
				continue
			}
			n++
			sum += g.Score
			kinds := 0
			for _, k := range g.Kinds {
				kinds += k.Total
			}
			if g.Probes == 0 || g.Kept > g.Probes || len(g.Lost) != g.Probes-g.Kept || kinds != g.Probes ||
				math.Abs(g.Score-g.Recall*g.SizeCharge) > 1e-9 || g.Score < 0 || g.Score > 1 {
				t.Errorf("%s step %d: grounded %+v", row.Strategy, s.Step, g)
			}
			if s.Replaced == ReplacedSummarized && g.Score < 1 {
				lossy = true
			}
		}
		if p.Measurable != n || (n == 0) != (p.Grounded == nil) || n > 0 && math.Abs(*p.Grounded-sum/float64(n)) > 1e-9 {
			t.Errorf("%s: totals %d measurable, mean %v; the compactions give %d, %v", row.Strategy, p.Measurable, p.Grounded, n, sum)
		}
		measured += n
		want := "n/a"
		if n > 0 {
			want = regexp.MustCompile(`^[01]\.\d{3}$`).FindString(strings.Fields(probeRow(t, rep, row.Strategy))[9])
		}
		if got := strings.Fields(probeRow(t, rep, row.Strategy)); got[9] != want || want == "" || got[10] != itoa(n) {
			t.Errorf("%s row %q", row.Strategy, strings.Join(got, " "))
		}
	}
	if rep.rows[0].Probes.Measurable == 0 {
		t.Error("no stagewise compaction measurable")
	}
	if measured == 0 || !lossy {
		t.Errorf("%d compactions measurable; a summary lost a grounded probe: %v", measured, lossy)
	}
}
