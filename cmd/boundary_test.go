package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/iostreams"
)

const bwVectorsDir = "../testdata/conformance/vectors/"

// bwRun runs args in-process with stdin and returns the exit status,
// stdout and stderr.
func bwRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	io, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	code := Run(io, args)
	return code, out.String(), errOut.String()
}

// bwWriteConfig writes a configuration file layered over the defaults.
func bwWriteConfig(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "compact.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func bwVectorLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(bwVectorsDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return lines
}

func bwNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// bwWalkExpected is the vectors' "expected" object.
type bwWalkExpected struct {
	Result               string `json:"result"`
	BoundaryIndex        *int   `json:"boundaryIndex"`
	KeptCount            *int   `json:"keptCount"`
	KeptBudget           int    `json:"keptBudget"`
	Floor                int    `json:"floor"`
	SingleMessageWarning bool   `json:"singleMessageWarning"`
}

// bwBoundaryKeys are the keys `compact boundary` prints, in order.
var bwBoundaryKeys = []string{
	"result", "boundaryIndex", "keptCount", "keptBudget", "floor", "singleMessageWarning",
	"messageCount", "contextWindow", "windowFromLookup", "stopReason", "stopIndex", "keptTokens",
}

// bwJSONKeys lists the top-level keys of a JSON object in order.
func bwJSONKeys(t *testing.T, data string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %q", data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestBoundaryCommandVectors(t *testing.T) {
	// The vectors' unset minimum is the base agent's 10; the shipped
	// configuration's agent is chat.
	cfg := bwWriteConfig(t, "compression:\n  agent: base\n")
	for _, line := range bwVectorLines(t, "boundary-walk.jsonl") {
		var v struct {
			Name            string         `json:"name"`
			Tokens          []float64      `json:"tokens"`
			Raw             *string        `json:"raw"`
			ExpectedTokens  []float64      `json:"expectedTokens"`
			ContextWindow   *int           `json:"contextWindow"`
			MinUncompressed *int           `json:"minUncompressedMessages"`
			Expected        bwWalkExpected `json:"expected"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		args := []string{"--config", cfg, "boundary"}
		if v.ContextWindow != nil {
			args = append(args, "--context-window", strconv.Itoa(*v.ContextWindow))
		}
		if v.MinUncompressed != nil {
			args = append(args, "--min-uncompressed", strconv.Itoa(*v.MinUncompressed))
		}
		type input struct{ name, stdin, tokens string }
		var inputs []input
		tokens := v.Tokens
		if v.Raw != nil {
			tokens = v.ExpectedTokens
			inputs = append(inputs, input{name: "stdin", stdin: *v.Raw})
		}
		list := make([]string, len(tokens))
		for i, tok := range tokens {
			list[i] = bwNum(tok)
		}
		inputs = append(inputs, input{name: "tokens", tokens: "--tokens=" + strings.Join(list, ",")})
		for _, in := range inputs {
			t.Run(v.Name+"/"+in.name, func(t *testing.T) {
				a := args
				if in.tokens != "" {
					a = append(append([]string(nil), args...), in.tokens)
				}
				code, out, errOut := bwRun(t, in.stdin, a...)
				if code != 0 || errOut != "" {
					t.Fatalf("compact %v: exit %d, stderr %q", a, code, errOut)
				}
				var got bwWalkExpected
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("%v: %q", err, out)
				}
				if d := cmp.Diff(v.Expected, got); d != "" {
					t.Errorf("compact %v (-want +got):\n%s", a, d)
				}
				if d := cmp.Diff(bwBoundaryKeys, bwJSONKeys(t, out)); d != "" {
					t.Errorf("keys (-want +got):\n%s", d)
				}
				var dbg struct {
					MessageCount     int  `json:"messageCount"`
					ContextWindow    int  `json:"contextWindow"`
					WindowFromLookup bool `json:"windowFromLookup"`
				}
				if err := json.Unmarshal([]byte(out), &dbg); err != nil {
					t.Fatal(err)
				}
				wantCtx := 100000
				if v.ContextWindow != nil {
					wantCtx = *v.ContextWindow
				}
				if dbg.MessageCount != len(tokens) || dbg.ContextWindow != wantCtx || dbg.WindowFromLookup != (v.ContextWindow != nil) {
					t.Errorf("debug fields %+v, want %d messages, window %d", dbg, len(tokens), wantCtx)
				}
			})
		}
	}
}

func TestTriggerCommandVectors(t *testing.T) {
	base := bwWriteConfig(t, "compression:\n  agent: base\n")
	profiles := map[float64]string{
		200000: bwWriteConfig(t, "profile: e3e\ncompression:\n  agent: base\n"),
		100000: bwWriteConfig(t, "profile: head\ncompression:\n  agent: base\n"),
	}
	for _, line := range bwVectorLines(t, "trigger.jsonl") {
		var v struct {
			Name          string   `json:"name"`
			UsedTokens    float64  `json:"usedTokens"`
			Threshold     *float64 `json:"threshold"`
			ContextWindow *int     `json:"contextWindow"`
			HardCap       float64  `json:"hardCap"`
			Expected      bool     `json:"expected"`
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		common := []string{"trigger", "--used", bwNum(v.UsedTokens)}
		if v.Threshold != nil {
			common = append(common, "--threshold", bwNum(*v.Threshold))
		}
		if v.ContextWindow != nil {
			common = append(common, "--context-window", strconv.Itoa(*v.ContextWindow))
		}
		profileCfg, ok := profiles[v.HardCap]
		if !ok {
			t.Fatalf("%s: no profile with hard cap %v", v.Name, v.HardCap)
		}
		variants := map[string][]string{
			// Everything from flags.
			"flags": append(append([]string{"--config", base}, common...), "--hard-cap", bwNum(v.HardCap)),
			// The hard cap from the profile.
			"profile": append([]string{"--config", profileCfg}, common...),
		}
		for name, args := range variants {
			t.Run(v.Name+"/"+name, func(t *testing.T) {
				code, out, errOut := bwRun(t, "", args...)
				if code != 0 || errOut != "" {
					t.Fatalf("compact %v: exit %d, stderr %q", args, code, errOut)
				}
				if want := strconv.FormatBool(v.Expected) + "\n"; out != want {
					t.Errorf("compact %v printed %q, want %q", args, out, want)
				}
				code, out, errOut = bwRun(t, "", append(args, "--json")...)
				if code != 0 || errOut != "" {
					t.Fatalf("--json: exit %d, stderr %q", code, errOut)
				}
				var got struct {
					Trigger       bool     `json:"trigger"`
					UsedTokens    float64  `json:"usedTokens"`
					Threshold     float64  `json:"threshold"`
					ContextWindow *int     `json:"contextWindow"`
					HardCap       float64  `json:"hardCap"`
					Limit         *float64 `json:"limit"`
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatalf("%v: %q", err, out)
				}
				threshold := 0.65
				if v.Threshold != nil {
					threshold = *v.Threshold
				}
				if got.Trigger != v.Expected || got.UsedTokens != v.UsedTokens || got.Threshold != threshold ||
					got.HardCap != v.HardCap || !cmp.Equal(got.ContextWindow, v.ContextWindow) ||
					(got.Limit == nil) != (v.ContextWindow == nil) {
					t.Errorf("--json: %s", out)
				}
			})
		}
	}
}

func TestCommandDefaultsAndLookup(t *testing.T) {
	chatCfg := bwWriteConfig(t, "compression:\n  agent: chat\n")
	headCfg := bwWriteConfig(t, "profile: head\n")
	tokens := "--tokens=" + strings.TrimSuffix(strings.Repeat("1000,", 20), ",")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string // substring of stdout
	}{
		// The shipped configuration is the base agent: min 10, threshold
		// 0.65; compression.agent chat switches to 12 and 0.5.
		{"base agent floor", "", []string{"boundary", tokens}, `"floor": 10`},
		{"base agent threshold", "", []string{"trigger", "--used", "130001", "--context-window", "200000"}, "true"},
		{"base agent threshold equal", "", []string{"trigger", "--used", "130000", "--context-window", "200000"}, "false"},
		{"chat agent floor", "", []string{"--config", chatCfg, "boundary", tokens}, `"floor": 12`},
		{"chat agent threshold", "", []string{"--config", chatCfg, "trigger", "--used", "100001", "--context-window", "200000"}, "true"},
		{"chat agent threshold equal", "", []string{"--config", chatCfg, "trigger", "--used", "100000", "--context-window", "200000"}, "false"},
		{"model found", "", []string{"trigger", "--used", "100001", "--model", "claude-sonnet-4.6", "--json"}, `"contextWindow": 200000`},
		{"model case-insensitive", "", []string{"trigger", "--used", "130001", "--model", "Claude-Sonnet-4.6"}, "true"},
		{"model missing", "", []string{"trigger", "--used", "1e9", "--model", "no-such-model"}, "false"},
		{"model missing explained", "", []string{"trigger", "--used", "1e9", "--model", "no-such-model", "--json"}, `model \"no-such-model\" is neither in the profile's catalogue nor in the context_windows table`},
		{"model missing reason", "", []string{"trigger", "--used", "1e9", "--model", "no-such-model", "--json"}, `"reason": "lookup-failed"`},
		{"boundary model missing", "", []string{"boundary", "--model", "no-such-model", tokens}, `"windowFromLookup": false`},
		// e3e's catalogue (available-models.ts at e3e125281a27).
		{"boundary model found", "", []string{"boundary", "--model", "gpt-5.4", tokens}, `"contextWindow": 1100000`},
		{"boundary model of head", "", []string{"--config", headCfg, "boundary", "--model", "gpt-5.6-luna", tokens}, `"contextWindow": 1050000`},
		{"boundary model not in e3e", "", []string{"boundary", "--model", "gpt-5.6-luna", tokens}, `"windowFromLookup": false`},
		{"boundary nan token", "", []string{"boundary", "--context-window", "200000", "--tokens", "50000,50000,NaN"}, `"keptTokens": "NaN"`},
		{"boundary empty stdin array", `{"json":[]}`, []string{"boundary"}, `"result": "skip-boundary-lt-1"`},
		{"trigger nan used", "", []string{"trigger", "--used", "NaN", "--context-window", "200000", "--json"}, `"usedTokens": "NaN"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := bwRun(t, tt.stdin, tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("compact %v printed\n%s\nwant it to contain %s", tt.args, out, tt.want)
			}
		})
	}
}

func TestCommandConfigOverrides(t *testing.T) {
	cfg := bwWriteConfig(t, "profile: head\ncompression:\n  agent: base\n  hard_cap_tokens: 50000\n"+
		"  min_uncompressed_messages: 7\n  kept_budget_hard_cap_tokens: 1000\n  default_context_window: 1000\n")
	code, out, errOut := bwRun(t, "", "--config", cfg, "trigger", "--used", "50001", "--context-window", "1000000")
	if code != 0 || out != "true\n" {
		t.Errorf("hard_cap_tokens 50000: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = bwRun(t, "", "--config", cfg, "trigger", "--used", "50001", "--context-window", "1000000", "--hard-cap", "60000")
	if code != 0 || out != "false\n" {
		t.Errorf("--hard-cap over config: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = bwRun(t, "", "--config", cfg, "boundary", "--tokens", "1,1,1,1,1,1,1,1,1,1")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	for _, want := range []string{`"floor": 7`, `"keptBudget": 200`, `"contextWindow": 1000`, `"boundaryIndex": 3`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	bad := bwWriteConfig(t, "compression:\n  threshold: lots\n  agent: base\n")
	code, _, errOut = bwRun(t, "", "--config", bad, "trigger", "--used", "1", "--context-window", "10")
	if code != 2 || !strings.Contains(errOut, "compression.threshold") {
		t.Errorf("bad threshold: exit %d, %q", code, errOut)
	}
	badAgent := bwWriteConfig(t, "compression:\n  agent: coder\n")
	code, _, errOut = bwRun(t, "", "--config", badAgent, "boundary", "--tokens", "1")
	if code != 2 || !strings.Contains(errOut, `unknown agent "coder"`) {
		t.Errorf("bad agent: exit %d, %q", code, errOut)
	}
}

func TestCommandInputErrors(t *testing.T) {
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"bad token", "", []string{"boundary", "--tokens", "1,x,3"}, `--tokens: item 2 ("x") is not a number`},
		{"empty token", "", []string{"boundary", "--tokens", "1,,3"}, `--tokens: item 2 ("") is not a number`},
		{"not json", "hello", []string{"boundary"}, "stdin: superjson: invalid JSON"},
		{"empty stdin", "", []string{"boundary"}, "stdin is empty"},
		{"not an array", `{"json":{"a":1}}`, []string{"boundary"}, "not a message array"},
		{"bad meta", `{"json":[],"meta":{"values":{"0":["nope"]}}}`, []string{"boundary"}, "stdin: superjson meta"},
		{"tokens and file", "", []string{"boundary", "--tokens", "1", "x.json"}, "mutually exclusive"},
		{"window and model", "", []string{"boundary", "--context-window", "5", "--model", "gpt-5.4", "--tokens", "1"}, "mutually exclusive"},
		{"used missing", "", []string{"trigger", "--context-window", "5"}, "--used is required"},
		{"used not a number", "", []string{"trigger", "--used", "many"}, `--used: "many" is not a number`},
		{"window not an int", "", []string{"boundary", "--context-window", "1.5", "--tokens", "1"}, `--context-window: "1.5" is not a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := bwRun(t, tt.stdin, tt.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, errOut)
			}
			if out != "" {
				t.Errorf("stdout %q", out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q, want one line containing %q", errOut, tt.want)
			}
		})
	}
}

// A null message: the upstream estimate is 0 for it (it never throws), so
// it only counts as one more message for the floor.
func TestBoundaryEstimateThrowsBehindStop(t *testing.T) {
	msg := `{"id":"u","role":"user","parts":[{"type":"text","text":"x"}]}`
	stdin := `{"json":[null,` + strings.TrimSuffix(strings.Repeat(msg+",", 12), ",") + `]}`
	code, out, errOut := bwRun(t, stdin, "boundary", "--context-window", "200000")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, `"boundaryIndex": 3`) || !strings.Contains(out, `"keptCount": 10`) {
		t.Errorf("got\n%s", out)
	}
}
