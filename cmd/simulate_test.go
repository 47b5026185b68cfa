package cmd

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/iostreams"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/strategy"
)

var updateSimulate = flag.Bool("update-simulate", false, "rewrite cmd/testdata/simulate golden files")

// simRun runs compact in-process with an empty environment (no user
// configuration, no keys).
func simRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	code := RunEnv(io, args, func(string) string { return "" })
	return code, out.String(), errOut.String()
}

// simSampleDB copies the sample database to a temporary directory.
func simSampleDB(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "stagewise", "instances.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "instances.sqlite")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func simExample(name string) string { return filepath.Join("..", "examples", "histories", name) }

func simGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "simulate", name)
	if *updateSimulate {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run %s -update-simulate)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update-simulate after checking):\n%s", path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + w + "\n got: " + g
		}
	}
	return "(same lines, different bytes)"
}

func TestSimulateAgainstRecordedGolden(t *testing.T) {
	db := simSampleDB(t)
	var transcript bytes.Buffer
	for _, args := range [][]string{
		{"--against-recorded"},
		{"--against-recorded", "--context-window", "16000"},
	} {
		code, out, errOut := simRun(t, "", append([]string{"simulate", "--db", db}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		transcript.WriteString("$ compact simulate --db instances.sqlite " + strings.Join(args, " ") + "\n")
		transcript.WriteString(out)
		transcript.WriteString("\n")
	}
	simGolden(t, "against-recorded.golden", transcript.String())
}

func TestSimulateAgainstRecordedJSON(t *testing.T) {
	db := simSampleDB(t)
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--against-recorded", "--context-window", "16000", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Chats []simulate.RecordedChat `json:"chats"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Chats) != 6 {
		t.Fatalf("%d chats", len(got.Chats))
	}
	recorded := 0
	for _, c := range got.Chats {
		if len(c.Matches)+len(c.Misses) != c.Recorded {
			t.Errorf("chat %s: %d matches + %d misses != %d recorded", c.Chat, len(c.Matches), len(c.Misses), c.Recorded)
		}
		if len(c.Matches)+len(c.Extra) != c.Simulated {
			t.Errorf("chat %s: %d matches + %d extra != %d simulated", c.Chat, len(c.Matches), len(c.Extra), c.Simulated)
		}
		for _, m := range c.Matches {
			if m.RecordedChars == 0 || m.SimulatedChars == 0 || m.Step == 0 {
				t.Errorf("chat %s: match without figures: %+v", c.Chat, m)
			}
		}
		recorded += c.Recorded
	}
	if recorded != 7 {
		t.Errorf("%d recorded boundaries, want the sample's 7", recorded)
	}
}

func TestSimulateCompareAndSweepOnSampleDatabase(t *testing.T) {
	db := simSampleDB(t)
	all := strings.Join(strategy.Names(), ",")
	start := time.Now()
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--compare", all)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	t.Logf("--compare %s on the sample database: %v", all, time.Since(start))
	for _, name := range strategy.Names() {
		if !strings.Contains(out, "\n  "+name+" ") {
			t.Errorf("compare table has no row for %s:\n%s", name, out)
		}
	}
	if !strings.HasPrefix(out, "6 chats; summarizer builtin\n") {
		t.Errorf("compare heading:\n%s", out)
	}

	start = time.Now()
	code, out, errOut = simRun(t, "", "simulate", "--db", db, "--sweep", "threshold=0.4:0.8:0.05", "--context-window", "16000")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errOut)
	}
	t.Logf("--sweep threshold=0.4:0.8:0.05 on the sample database: %v", time.Since(start))
	var got []string
	rows, _, _ := strings.Cut(out, "\noffline probe scores") // the first table
	for _, line := range strings.Split(rows, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "stagewise" {
			got = append(got, f[0])
		}
	}
	if strings.Join(got, " ") != "0.4 0.45 0.5 0.55 0.6 0.65 0.7 0.75 0.8" {
		t.Errorf("sweep rows for %v:\n%s", got, out)
	}

	start = time.Now()
	code, out, errOut = simRun(t, "", "simulate", "--db", db, "--sweep", "threshold=0.4:0.8:0.05", "--compare", all, "--json")
	if code != 0 {
		t.Fatalf("sweep --compare --json: exit %d: %s", code, errOut)
	}
	t.Logf("--sweep with --compare of every strategy, JSON: %v", time.Since(start))
	var sw struct {
		Knob   string         `json:"knob"`
		Values []float64      `json:"values"`
		Rows   []simulate.Row `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatal(err)
	}
	if sw.Knob != "threshold" || len(sw.Values) != 9 || len(sw.Rows) != 9*len(strategy.Names()) {
		t.Errorf("knob %q, %d values, %d rows", sw.Knob, len(sw.Values), len(sw.Rows))
	}
	for _, r := range sw.Rows {
		if r.Value == nil || r.Chats != 6 {
			t.Errorf("row %+v", r)
		}
	}
}

func TestSimulateTimelineOfAChat(t *testing.T) {
	db := simSampleDB(t)
	code, out, errOut := simRun(t, "", "simulate", "--db", db, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--context-window", "16000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`chat ff5dc157-1738-4824-a458-f29a0cd9d0fb "Add dark mode with a header toggle"`,
		"strategy stagewise, summarizer builtin, context window 16,000; 62 messages, 31 steps",
		"  step  message  context  fired  boundary  kept  summary  after  rejected",
		"context tokens per step; ^ compaction, x rejected by a guardrail",
		"must-keep retention of the final summary: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "^") == 0 {
		t.Errorf("no compaction marked under the chart:\n%s", out)
	}
	// Two runs give the same bytes.
	_, again, _ := simRun(t, "", "simulate", "--db", db, "--chat", "ff5dc157-1738-4824-a458-f29a0cd9d0fb", "--context-window", "16000")
	if again != out {
		t.Error("the output is not deterministic")
	}
}
