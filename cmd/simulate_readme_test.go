package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

// simReadmeExamples are the simulate commands README.md shows on the
// shipped sample; TestSimulateReadmeExamples runs them and every
// `compact simulate` line of README.md.
var simReadmeExamples = []string{
	"compact simulate --db examples/stagewise/instances.sqlite --chat ff5dc157-1738-4824-a458-f29a0cd9d0fb --context-window 16000",
	"compact simulate --db examples/stagewise/instances.sqlite --compare stagewise,onyx,summary-buffer,sliding-window,selective-prune --context-window 6000",
	"compact simulate --db examples/stagewise/instances.sqlite --sweep context_window=4000:16000:4000 --compare stagewise,summary-buffer",
	"compact simulate --db examples/stagewise/instances.sqlite --against-recorded --context-window 10000",
}

// readmeSimulateLines lists the simulate commands of README.md's ```sh
// blocks ("compact simulate …" or "go run . simulate …"), continuation
// lines joined.
func readmeSimulateLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inSh := false
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") {
			inSh = !inSh && l == "```sh"
			continue
		}
		for inSh && strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		if k := strings.Index(l, " #"); k >= 0 {
			l = l[:k]
		}
		l = strings.Replace(l, "go run . simulate", "compact simulate", 1)
		if inSh && strings.HasPrefix(l, "compact simulate") {
			out = append(out, l)
		}
	}
	return out
}

// simCompactions runs args (plus --json) and counts the compactions of
// each strategy: over the histories of timelines, per row of a comparison
// or a sweep (the most of any value), the simulated boundaries against
// recorded ones.
func simCompactions(t *testing.T, args []string) map[string]int {
	t.Helper()
	code, out, errOut := simRun(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	// Timelines name their strategy and give histories as objects; a
	// comparison gives their names.
	var got struct {
		Strategy  string                  `json:"strategy"`
		Histories json.RawMessage         `json:"histories"`
		Rows      []simulate.Row          `json:"rows"`
		Chats     []simulate.RecordedChat `json:"chats"`
		// Against the compactions of agents' sessions.
		Sessions []simulate.AgentRecorded `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	var timelines []simulate.HistoryTimeline
	if got.Strategy != "" {
		if err := json.Unmarshal(got.Histories, &timelines); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	n := map[string]int{}
	for _, h := range timelines {
		n[got.Strategy] += h.Timeline.Compactions
	}
	for _, r := range got.Rows {
		n[r.Strategy] = max(n[r.Strategy], r.Compactions)
	}
	for _, c := range got.Chats {
		n[strategy.NameStagewise] += c.Simulated
	}
	for _, c := range got.Sessions {
		for _, st := range c.Strategies {
			n[st.Strategy] += len(st.Compactions)
		}
	}
	if len(n) == 0 {
		t.Fatalf("%v: no figures in %s", args, out)
	}
	return n
}

// TestSimulateReadmeExamples runs the simulate examples of the README and
// of --help on the shipped sample and example histories: each must show
// compactions for every strategy it names (or a hint whose window does),
// so that the examples cannot go stale.
func TestSimulateReadmeExamples(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	db := simSampleDB(t)
	cmds := append(append([]string(nil), simReadmeExamples...), readmeSimulateLines(t)...)
	// The examples of --help too.
	root, _ := NewRootCmd(iostreams.System())
	c, _, err := root.Find([]string{"simulate"})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(c.Example, "\n") {
		cmds = append(cmds, strings.TrimSpace(l))
	}
	seen := map[string]bool{}
	for _, line := range cmds {
		if seen[line] {
			continue
		}
		seen[line] = true
		words := strings.Fields(line)[1:]
		uses := false
		for i, w := range words {
			switch {
			case w == "examples/stagewise/instances.sqlite":
				words[i], uses = db, true
			case strings.HasPrefix(w, "examples/"):
				words[i], uses = filepath.Join("..", w), true
			}
		}
		if !uses {
			continue // not on the shipped examples: the app's own database
		}
		t.Run(strings.Join(words[3:], " "), func(t *testing.T) {
			code, out, errOut := simRun(t, "", words...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "compact simulate: hint:") {
				// An example without knobs shows the hint; the
				// hint's window must then compact.
				words = simHintArgs(t, words, errOut)
			} else if strings.Contains(out, " 0 compactions,") && !strings.Contains(out, "^") {
				t.Errorf("nothing compacts:\n%s", out)
			}
			for name, n := range simCompactions(t, words) {
				if n == 0 {
					t.Errorf("%s: 0 compactions", name)
				}
			}
		})
	}
}

var simHintWindow = regexp.MustCompile(`try --context-window (\d+)\n`)

// simHintArgs checks the hint of errOut and returns args with its window.
func simHintArgs(t *testing.T, args []string, errOut string) []string {
	t.Helper()
	m := simHintWindow.FindStringSubmatch(errOut)
	if m == nil || strings.Count(errOut, "compact simulate: hint:") != 1 {
		t.Fatalf("want one hint with a window, got:\n%s", errOut)
	}
	return append(append([]string(nil), args...), "--context-window", m[1])
}

// TestSimulateHintWhenNothingCompacts runs the sample under the chats'
// own windows (200,000 and 400,000 tokens: nothing fires) and follows
// the hint.
func TestSimulateHintWhenNothingCompacts(t *testing.T) {
	db := simSampleDB(t)
	all := strings.Join(strategy.Names(), ",")
	tests := []struct {
		args []string
		hint string
	}{
		{[]string{"--db", db},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
		{[]string{"--db", db, "--against-recorded"},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
		{[]string{"--db", db, "--compare", "stagewise,onyx,summary-buffer"},
			"compact simulate: hint: no compaction fired for any strategy: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 4700\n"},
		// Observation masking fires at every step (its hybrid too) and
		// selective prune when a result is old enough; the rest need a
		// smaller window.
		{[]string{"--db", db, "--compare", all},
			"compact simulate: hint: no compaction fired for codex-user-retention, onyx, prune-summarize, sliding-window, stagewise, summary-buffer, tool-clearing: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 4700\n"},
		{[]string{"--db", db, "--sweep", "threshold=0.5:0.7:0.1"},
			"compact simulate: hint: no compaction fired: the largest context is 9% of its window (18,113 of 200,000 tokens); try --context-window 14000\n"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			args := append([]string{"simulate"}, tc.args...)
			code, out, errOut := simRun(t, "", args...)
			if code != 0 || errOut != tc.hint {
				t.Fatalf("exit %d, stderr:\n%s\nwant:\n%s", code, errOut, tc.hint)
			}
			if strings.Contains(out, "hint") {
				t.Errorf("the hint is on stdout:\n%s", out)
			}
			for name, n := range simCompactions(t, simHintArgs(t, args, errOut)) {
				if n == 0 && name != strategy.NameSelectivePrune {
					t.Errorf("the hint's window: %s: 0 compactions", name)
				}
			}
			// --quiet drops it, --json keeps stdout JSON.
			if _, _, errOut := simRun(t, "", append(args, "-q")...); errOut != "" {
				t.Errorf("-q: stderr %q", errOut)
			}
		})
	}
	// A sweep of the window itself gives no hint.
	if code, _, errOut := simRun(t, "", "simulate", "--db", db, "--sweep", "context_window=300000"); code != 0 || errOut != "" {
		t.Errorf("sweep of context_window: exit %d, stderr %q", code, errOut)
	}
}

// TestSimulateProbeScoresOnSampleDatabase: on the shipped sample every
// strategy's compactions are scored against probes mined from what they
// replaced, the text shows them in a second table of at most 120 columns,
// and --json carries each summary's text.
func TestSimulateProbeScoresOnSampleDatabase(t *testing.T) {
	db := simSampleDB(t)
	args := []string{"simulate", "--db", db, "--compare", "stagewise,onyx,summary-buffer,sliding-window,selective-prune", "--context-window", "6000"}
	code, out, errOut := simRun(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, table, ok := strings.Cut(out, "\noffline probe scores of what each compaction replaced (as compact eval scores a briefing):\n")
	if !ok {
		t.Fatalf("no probe table:\n%s", out)
	}
	table, _, _ = strings.Cut(table, "\n\n") // the cost table follows
	for _, l := range strings.Split(table, "\n") {
		if len([]rune(l)) > 120 {
			t.Errorf("a line of %d columns: %s", len([]rune(l)), l)
		}
	}
	if !strings.Contains(table, "  strategy         scored  probes") {
		t.Errorf("probe table heading:\n%s", table)
	}

	code, out, errOut = simRun(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var got struct {
		Rows []simulate.Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != 5 {
		t.Fatalf("%d rows", len(got.Rows))
	}
	for _, row := range got.Rows {
		p := row.Probes
		if p == nil || p.Scored == 0 || p.Overall.Total == 0 || p.Scored != len(row.Summaries) {
			t.Errorf("%s: probe totals %+v over %d summaries", row.Strategy, p, len(row.Summaries))
			continue
		}
		total := 0
		for _, s := range row.Summaries {
			total += s.Overall.Total
			if s.Overall.Total-s.Overall.Kept != len(s.Lost) {
				t.Errorf("%s step %d: %d probes, %d kept, %d lost", row.Strategy, s.Step, s.Overall.Total, s.Overall.Kept, len(s.Lost))
			}
			summarizes := row.Strategy != "sliding-window" && row.Strategy != "selective-prune"
			if summarizes != (s.Replaced == simulate.ReplacedSummarized) || summarizes != (s.Summary != "") {
				t.Errorf("%s step %d: replaced %q, summary of %d bytes", row.Strategy, s.Step, s.Replaced, len(s.Summary))
			}
		}
		if total != p.Overall.Total {
			t.Errorf("%s: %d probes over the summaries, %d in the totals", row.Strategy, total, p.Overall.Total)
		}
	}
	// The same scores again.
	_, again, _ := simRun(t, "", append(args, "--json")...)
	if again != out {
		t.Error("the JSON is not deterministic")
	}
}
