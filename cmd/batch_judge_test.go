package cmd

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/batch"
	"github.com/compactlab/compact/internal/batch/fakebatch"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/testfiles"
)

// judgeReply plays the judge on the fake batch service as judgeServer
// plays it on the chat API: as the answerer it answers every question
// with the size of the briefing it was shown; as the judge it grades each
// answer set with that size modulo 6, so that a test knows which grade
// belongs to which briefing whatever the order the sets were shown in.
func judgeReply(pack *eval.JudgePack) func(kind, model, system, user string) fakebatch.Reply {
	return func(kind, model, system, user string) fakebatch.Reply {
		var answer strings.Builder
		switch system {
		case pack.AnswerSystem:
			m := briefingRe.FindStringSubmatch(user)
			end := strings.Index(user, "</briefing>")
			if m == nil || end < 0 {
				return fakebatch.Reply{Status: 400, Error: "no briefing"}
			}
			for _, q := range questionRe.FindAllStringSubmatch(user[end:], -1) {
				fmt.Fprintf(&answer, "Q%s: briefing of %d characters\n", q[1], len(m[1]))
			}
		case pack.GradeSystem:
			a := strings.Index(user, "Answer set A:")
			if a < 0 {
				return fakebatch.Reply{Status: 400, Error: "no answer sets"}
			}
			n := len(questionRe.FindAllString(user[:a], -1))
			answer.WriteString("```json\n")
			for _, set := range answerSetRe.FindAllStringSubmatch(user, -1) {
				size, _ := strconv.Atoi(set[2])
				g := size % 6
				for q := 1; q <= n; q++ {
					fmt.Fprintf(&answer, `{"q": %d, "set": "%s", "accuracy": %d, "context_awareness": %d, "artifact_trail": %d, "completeness": %d, "continuity": %d, "instruction_following": %d}`+"\n", q, set[1], g, g, g, g, g, g)
				}
			}
			answer.WriteString("```\n")
		default:
			return fakebatch.Reply{Status: 400, Error: "unknown system prompt"}
		}
		return fakebatch.Reply{Text: answer.String(), In: 1000, Out: 100}
	}
}

// judgeBatchProviders are the judges of the test, one per batch API.
var judgeBatchProviders = []struct {
	kind, model string
	env         func(url string) map[string]string
}{
	{"openai", "gpt-5.4-nano", func(u string) map[string]string {
		return map[string]string{"OPENAI_API_KEY": judgeKey, "COMPACT_OPENAI_BASE_URL": u}
	}},
	{"anthropic", "claude-haiku-4.5", func(u string) map[string]string {
		return map[string]string{"ANTHROPIC_API_KEY": judgeKey, "COMPACT_ANTHROPIC_BASE_URL": u}
	}},
	{"gemini", "gemini-3.1-flash-lite", func(u string) map[string]string {
		return map[string]string{"GOOGLE_API_KEY": judgeKey, "COMPACT_GEMINI_BASE_URL": u}
	}},
}

// TestEvalJudgeBatch: eval --judge MODEL --batch submits every answer
// request in one batch and returns; after a "kill" (every later step is
// a new run of compact: nothing is shared but the files), batch collect
// collects the answers and submits the grades built from them; the next
// collect writes the records, at the batch rate. eval --judge --batch
// then reports the judged scores, and the interactive eval --judge over
// the same bundles sends nothing at all (everything is in the cache) and
// reports the same scores, each grade on the briefing it belongs to.
func TestEvalJudgeBatch(t *testing.T) {
	t.Parallel() // heavy and independent: overlaps the others at the end of the package's run
	src := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", src); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	linkRe := regexp.MustCompile(`\[[^\]]*\]\(path:[^)]*\)`)
	for _, b := range listBundles(t, src) {
		actual := diffActual(t, b)
		diffReplay(t, b, "same", actual+"\n(end of briefing)\n", "2026-07-01T10:00:00Z")
		diffReplay(t, b, "nolinks", linkRe.ReplaceAllString(actual, "a file"), "2026-07-01T10:00:00Z")
	}
	pack := eval.DefaultJudgePack()
	for i, p := range judgeBatchProviders {
		t.Run(p.kind, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "sample")
			from, to := src, out
			if testfiles.Race && i > 0 {
				// Under the race detector the first provider judges all
				// seven bundles and the others the two of the first chat
				// (a briefing and the one chained to it): the steps and
				// checks are the same for any number of bundles, and the
				// cost (about 3 s a provider) is each bundle's.
				const chat = "001-paginate-the-recipe-list-server-side"
				from, to = filepath.Join(src, chat), filepath.Join(out, chat)
			}
			if err := os.CopyFS(to, os.DirFS(from)); err != nil {
				t.Fatal(err)
			}
			bundles := listBundles(t, out)
			srv := fakebatch.New()
			srv.Polls = 1 // a batch ends at its second poll
			srv.Answer = judgeReply(pack)
			ts := httptest.NewServer(srv)
			defer ts.Close()
			env := p.env(ts.URL)
			env["COMPACT_CACHE_DIR"] = t.TempDir()
			run := batch.JudgeRun(p.model)

			// Submit: one batch of every answer request, nothing judged yet.
			code, so, se := runIn(t, env, "eval", out, "--judge", p.model, "--batch")
			if code != 0 || !strings.Contains(so, "judge batch run "+run) || !strings.Contains(se, "compact batch collect --run "+run) {
				t.Fatalf("eval --batch: exit %d\n%s%s", code, so, se)
			}
			if srv.Created() != 1 || srv.Requests() != int64(3*len(bundles)) {
				t.Fatalf("%d batches of %d requests, want one of %d (three briefings a bundle)", srv.Created(), srv.Requests(), 3*len(bundles))
			}
			code, so, se = runIn(t, env, "--json", "batch", "status", out)
			var status batch.Report
			if code != 0 || json.Unmarshal([]byte(so), &status) != nil || len(status.Batches) != 1 || status.Batches[0].Ended || status.Bundles.Submitted != 3*len(bundles) {
				t.Fatalf("batch status: exit %d\n%s%s", code, so, se)
			}
			noRecords := func(when string) {
				for _, b := range bundles {
					if _, err := os.Stat(filepath.Join(b, "judge", p.model+".json")); err == nil {
						t.Fatalf("%s: a record %s", b, when)
					}
				}
			}
			noRecords("before any collect")

			// Collect the answers: the grades go out.
			code, so, se = runIn(t, env, "--json", "batch", "collect", "--run", run, out)
			var rep batch.Report
			if code != 0 || json.Unmarshal([]byte(so), &rep) != nil {
				t.Fatalf("collect: exit %d\n%s%s", code, so, se)
			}
			if len(rep.Collected) != 1 || len(rep.Submitted) != 1 || rep.Bundles.Submitted != len(bundles) || srv.Created() != 2 ||
				srv.Requests() != int64(4*len(bundles)) || rep.Kind != batch.KindJudge {
				t.Fatalf("after the answers: %+v, collected %v, submitted %v, %d batches, %d requests", rep.Bundles, rep.Collected, rep.Submitted, srv.Created(), srv.Requests())
			}
			noRecords("before the grades are collected")

			// Collect the grades: the records.
			code, so, se = runIn(t, env, "--json", "batch", "collect", "--run", run, out)
			rep = batch.Report{}
			if code != 0 || json.Unmarshal([]byte(so), &rep) != nil || rep.Bundles.OK != len(bundles) || rep.Bundles.Pending() != 0 {
				t.Fatalf("collect the grades: exit %d, %+v\n%s%s", code, rep.Bundles, so, se)
			}
			if strings.Contains(so+se, judgeKey) {
				t.Fatal("the key was printed")
			}
			st, err := config.LoadEnv("", func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			cas, err := cascade.Load(st, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			model, _ := cas.Models.Lookup(p.model)
			var batchCost float64
			for _, b := range bundles {
				data, err := os.ReadFile(filepath.Join(b, "judge", p.model+".json"))
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(data), judgeKey) {
					t.Fatalf("%s: the record holds the key", b)
				}
				var rec eval.JudgeRecord
				if err := json.Unmarshal(data, &rec); err != nil {
					t.Fatal(err)
				}
				if len(rec.Calls) != 4 || rec.Calls[3].Purpose != "grade" || len(rec.Briefings) != 3 || rec.Judge != p.model {
					t.Fatalf("%s: record %+v", b, rec)
				}
				for _, c := range rec.Calls {
					want := cascade.RoundUSD(model.Cost(cascade.Usage{InputTokens: 1000, OutputTokens: 100}) * 0.5)
					if c.Cached || c.Usage.InputTokens != 1000 || math.Abs(c.CostUSD-want) > 1e-9 || c.CostUSD == 0 {
						t.Fatalf("%s: call %+v, want cost %v (the batch rate)", b, c, want)
					}
				}
				batchCost += rec.CostUSD
			}
			if math.Abs(rep.Ledger.Total.CostUSD-batchCost) > 1e-6 {
				t.Errorf("ledger %v, records %v", rep.Ledger.Total.CostUSD, batchCost)
			}
			for _, dir := range []string{"items", "."} {
				filepath.Walk(filepath.Join(out, ".batches", run, dir), func(path string, info os.FileInfo, err error) error {
					if err == nil && !info.IsDir() {
						if data, _ := os.ReadFile(path); strings.Contains(string(data), judgeKey) {
							t.Errorf("%s holds the key", path)
						}
					}
					return nil
				})
			}

			// eval --batch reports the judged scores, sending nothing.
			calls := srv.Calls("")
			code, so, se = runIn(t, env, "eval", out, "--judge", p.model, "--batch", "--json")
			if code != 0 || srv.Calls("") != calls {
				t.Fatalf("eval --batch once done: exit %d, %d calls\n%s", code, srv.Calls("")-calls, se)
			}
			checkJudged(t, so, len(bundles))

			// The interactive judge: everything from the cache.
			code, so, se = runIn(t, env, "eval", out, "--judge", p.model, "--json")
			if code != 0 || srv.Calls("") != calls {
				t.Fatalf("eval --judge after the batch: exit %d, %d requests\n%s", code, srv.Calls("")-calls, se)
			}
			rep2 := checkJudged(t, so, len(bundles))
			// (The cache saves what the calls cost interactively: twice
			// the batch rate.)
			if rep2.Judge == nil || rep2.Judge.Cached != rep2.Judge.Calls || rep2.Judge.CostUSD != 0 || math.Abs(rep2.Judge.SavedUSD-2*batchCost) > 0.01*batchCost {
				t.Errorf("interactive judge after the batch: %+v, batch cost %v", rep2.Judge, batchCost)
			}
		})
	}
}

// checkJudged reads eval --json and checks every briefing's judged score
// is its size modulo 6: the grade of its own answers.
func checkJudged(t *testing.T, js string, bundles int) judgeReport {
	t.Helper()
	var rep judgeReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("%v\n%.400s", err, js)
	}
	if len(rep.Results) != bundles {
		t.Fatalf("%d results, want %d", len(rep.Results), bundles)
	}
	for _, res := range rep.Results {
		if res.Judge == nil || len(res.Judge.Calls) != 4 || res.Judge.Error != "" {
			t.Fatalf("%s: judge %+v", res.Bundle, res.Judge)
		}
		for _, b := range res.Briefings {
			text, err := os.ReadFile(b.File)
			if err != nil {
				t.Fatal(err)
			}
			want := float64(len(strings.TrimRight(string(text), "\n")) % 6)
			if b.Judged == nil || b.Judged.Score != want || b.Judged.Ungraded != 0 {
				t.Errorf("%s %s: judged %+v, want score %v", res.Bundle, b.Name, b.Judged, want)
			}
		}
	}
	for _, s := range rep.Sides {
		if s.Judged == nil || s.Judged.Bundles != bundles {
			t.Errorf("side %s: judged %+v", s.Name, s.Judged)
		}
	}
	return rep
}

// TestEvalJudgeBatchUsage: what eval --batch refuses, each exit 2.
func TestEvalJudgeBatchUsage(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", root); code != 0 {
		t.Fatalf("extract: %s", errOut)
	}
	srv := fakebatch.New()
	srv.Polls = 1 << 20
	ts := httptest.NewServer(srv)
	defer ts.Close()
	env := map[string]string{"OPENAI_API_KEY": judgeKey, "COMPACT_OPENAI_BASE_URL": ts.URL, "COMPACT_CACHE_DIR": t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch"}, "--batch goes with --judge MODEL"},
		{[]string{"--batch", "--judge-base-url", ts.URL, "--judge-api-model", "m"}, "none of the others can be"},
		{[]string{"--batch", "--judge", "local", "--judge-api-model", "m", "--config", writeLocalProvider(t, ts.URL)}, "no batch API"},
	} {
		code, _, errOut := runIn(t, env, append([]string{"eval", root}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
	// A run still in batches is only collected with the options it was
	// submitted with.
	if code, out, errOut := runIn(t, env, "eval", root, "--judge", "gpt-5.4-nano", "--batch"); code != 0 {
		t.Fatalf("submit: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := runIn(t, env, "eval", root, "--judge", "gpt-5.4-nano", "--batch", "--judge-questions", "3")
	if code != 2 || !strings.Contains(errOut, "submitted with other options") {
		t.Errorf("other options: exit %d, %q", code, errOut)
	}
	calls := srv.Calls("")
	if code, out, errOut := runIn(t, env, "eval", root, "--judge", "gpt-5.4-nano", "--batch"); code != 0 || srv.Calls("") != calls+1 || !strings.Contains(errOut, "not answered yet (7 in batches, 0 to submit)") {
		t.Errorf("collect while in progress: exit %d, %d calls\n%s%s", code, srv.Calls("")-calls, out, errOut)
	}
}

// writeLocalProvider writes a configuration with a server as
// providers.local and a model "local" on it.
func writeLocalProvider(t *testing.T, url string) string {
	path := filepath.Join(t.TempDir(), "compact.yaml")
	yaml := "providers:\n  local:\n    kind: openai-compatible\n    base_url: " + url + "\n"
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
