package cmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/compactlab/compact/internal/eval"
)

var updateJudge = flag.Bool("update-judge", false, "rewrite cmd/testdata/judge from the current judge prompts")

const judgeKey = "sk-judge-SECRET-7777"

// judgeServer is a fake OpenAI chat-completions server that plays both
// parts: as the answerer it answers every question with the size of the
// briefing it was shown ("Q1: briefing of N characters"); as the judge it
// grades every answer set with that size modulo 6, on every dimension, so
// that a test knows which grade belongs to which briefing whatever the
// order the sets were shown in.
type judgeServer struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []wireRequest
	// unreadable: the judge answers the grade call in prose, with no
	// grade line compact can read.
	unreadable bool
	// vary: the judge grades the Nth identical grade request one more
	// than the one before it, (size + N − 1) modulo 6, as a model that
	// varies from one call to the next (eval --judge-repeat).
	vary bool
	seen map[string]int
}

var (
	briefingRe  = regexp.MustCompile(`(?s)<briefing>\n(.*)\n</briefing>`)
	questionRe  = regexp.MustCompile(`(?m)^Q(\d+)[ :]`)
	answerSetRe = regexp.MustCompile(`(?m)^Answer set ([A-Z]):\nQ1: briefing of (\d+) characters`)
)

func newJudgeServer(t *testing.T, pack *eval.JudgePack) *judgeServer {
	t.Helper()
	s := &judgeServer{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req wireRequest
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) != 2 || r.Header.Get("Authorization") != "Bearer "+judgeKey {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		sys, user := req.Messages[0].Content, req.Messages[1].Content
		var answer strings.Builder
		switch sys {
		case pack.AnswerSystem:
			m := briefingRe.FindStringSubmatch(user)
			qs := questionRe.FindAllStringSubmatch(user[strings.Index(user, "</briefing>"):], -1)
			if m == nil || len(qs) == 0 {
				http.Error(w, "no briefing or no questions", http.StatusBadRequest)
				return
			}
			for _, q := range qs {
				fmt.Fprintf(&answer, "Q%s: briefing of %d characters\n", q[1], len(m[1]))
			}
		case pack.GradeSystem:
			if s.unreadable {
				answer.WriteString("All the answer sets look reasonable to me; set A is the most complete overall.")
				break
			}
			n := len(questionRe.FindAllString(user[:strings.Index(user, "Answer set A:")], -1))
			shift := 0
			if s.vary {
				s.mu.Lock()
				if s.seen == nil {
					s.seen = map[string]int{}
				}
				shift = s.seen[user]
				s.seen[user]++
				s.mu.Unlock()
			}
			answer.WriteString("```json\n")
			for _, set := range answerSetRe.FindAllStringSubmatch(user, -1) {
				size, _ := strconv.Atoi(set[2])
				g := (size + shift) % 6
				for q := 1; q <= n; q++ {
					fmt.Fprintf(&answer, `{"q": %d, "set": "%s", "accuracy": %d, "context_awareness": %d, "artifact_trail": %d, "completeness": %d, "continuity": %d, "instruction_following": %d}`+"\n", q, set[1], g, g, g, g, g, g)
				}
			}
			answer.WriteString("```\n")
		default:
			http.Error(w, "unknown system prompt", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-judge", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": answer.String()}}},
			"usage":   map[string]any{"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100},
		})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *judgeServer) requests() []wireRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wireRequest(nil), s.reqs...)
}

// judgeReport is the part of eval --json the judge tests read.
type judgeReport struct {
	Sides []struct {
		Name   string
		Judged *eval.JudgedSummary
	}
	Pairs []struct {
		A, B   string
		Judged *eval.JudgedPair
	}
	Results []struct {
		Bundle    string
		Briefings []struct {
			Name   string
			File   string
			Judged *eval.JudgedBriefing
		}
		Judge *eval.JudgeSummary
	}
	Judge  *eval.ReportJudge
	Failed []struct{ Gate, Side string }
}

// TestEvalJudge: --judge asks each briefing's answerer and one judge call
// per bundle through a real OpenAI client against a loopback server; the
// prompts are byte for byte the golden ones, the grades land on the right
// briefing whatever order the judge saw them in, the cost is recorded per
// call, per bundle and in total; a rerun is answered from the cache with
// no request at all; the key is nowhere.
func TestEvalJudge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sample")
	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	if code, _, errOut := diffRun(t, nil, "extract", "--db", db, "--out", out); code != 0 {
		t.Fatalf("extract: exit %d: %s", code, errOut)
	}
	bundles := listBundles(t, out)
	// Two runs: the app's briefing as is, and one with every link cut.
	linkRe := regexp.MustCompile(`\[[^\]]*\]\(path:[^)]*\)`)
	for _, b := range bundles {
		actual := diffActual(t, b)
		diffReplay(t, b, "same", actual+"\n(end of briefing)\n", "2026-07-01T10:00:00Z")
		diffReplay(t, b, "nolinks", linkRe.ReplaceAllString(actual, "a file"), "2026-07-01T10:00:00Z")
	}
	pack := eval.DefaultJudgePack()
	srv := newJudgeServer(t, pack)
	cacheDir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": judgeKey, "COMPACT_OPENAI_BASE_URL": srv.srv.URL, "COMPACT_CACHE_DIR": cacheDir}

	code, js, errOut := diffRun(t, env, "eval", out, "--judge", "gpt-5.4-nano", "--json")
	if code != 0 {
		t.Fatalf("eval --judge: exit %d: %s", code, errOut)
	}
	for _, s := range []string{js, errOut} {
		if strings.Contains(s, judgeKey) || strings.Contains(s, "judge-SECRET") {
			t.Fatal("the key reached the output")
		}
	}
	reqs := srv.requests()
	// Three answer calls (actual, nolinks, same: three texts) and one grade
	// call per bundle.
	if len(reqs) != 4*len(bundles) {
		t.Fatalf("%d requests for %d bundles, want 4 each", len(reqs), len(bundles))
	}
	for _, r := range reqs {
		if r.Model != "gpt-5.4-nano" || r.Temperature != nil {
			t.Errorf("request model %q temperature %s (gpt-5.4-nano takes none)", r.Model, r.Temperature)
		}
	}
	var rep judgeReport
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	// Each briefing's grade is its size modulo 6: the grades came back to
	// the right briefing.
	orders := map[string]bool{}
	var total float64
	for _, res := range rep.Results {
		if res.Judge == nil || len(res.Judge.Calls) != 4 || res.Judge.Error != "" {
			t.Fatalf("%s: judge %+v", res.Bundle, res.Judge)
		}
		orders[strings.Join(res.Judge.Order, ",")] = true
		for _, b := range res.Briefings {
			text, err := os.ReadFile(b.File)
			if err != nil {
				t.Fatal(err)
			}
			want := float64(len(strings.TrimRight(string(text), "\n")) % 6)
			if b.Judged == nil || b.Judged.Score != want || b.Judged.Dimensions["artifact_trail"] != want || b.Judged.Ungraded != 0 {
				t.Errorf("%s %s: judged %+v, want score %v", res.Bundle, b.Name, b.Judged, want)
			}
		}
		sum := 0.0
		for _, c := range res.Judge.Calls {
			if c.Cached || c.CostUSD <= 0 || c.Usage.InputTokens != 1000 {
				t.Errorf("%s: call %+v", res.Bundle, c)
			}
			sum += c.CostUSD
		}
		if d := sum - res.Judge.CostUSD; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s: cost %v, calls add up to %v", res.Bundle, res.Judge.CostUSD, sum)
		}
		total += res.Judge.CostUSD
		rec, err := os.ReadFile(filepath.Join(res.Bundle, "judge", "gpt-5.4-nano.json"))
		if err != nil || !strings.Contains(string(rec), `"answer": "briefing of`) || strings.Contains(string(rec), judgeKey) {
			t.Errorf("%s: record %v\n%.300s", res.Bundle, err, rec)
		}
	}
	if len(orders) < 2 {
		t.Errorf("the answer sets were shown in one order for every bundle: %v", orders)
	}
	if rep.Judge == nil || rep.Judge.Calls != 4*len(bundles) || rep.Judge.Cached != 0 || rep.Judge.Bundles != len(bundles) || rep.Judge.CostUSD-total > 1e-9 || total-rep.Judge.CostUSD > 1e-6 || total == 0 {
		t.Errorf("report judge %+v, bundles cost %v", rep.Judge, total)
	}
	for _, s := range rep.Sides {
		if s.Judged == nil || s.Judged.Bundles != len(bundles) {
			t.Errorf("side %s: judged %+v", s.Name, s.Judged)
		}
	}
	for _, p := range rep.Pairs {
		if p.Judged == nil || p.Judged.N != len(bundles) {
			t.Errorf("pair %s vs %s: judged %+v", p.B, p.A, p.Judged)
		}
	}

	// The prompts, byte for byte, for the first bundle.
	first := bundles[0]
	var answerUser, gradeUser string
	for _, r := range reqs {
		u := r.Messages[1].Content
		if r.Messages[0].Content == pack.AnswerSystem && strings.Contains(u, strings.TrimRight(diffActual(t, first), "\n")+"\n</briefing>") && answerUser == "" {
			answerUser = u
		}
	}
	firstSize := fmt.Sprintf("briefing of %d characters", len(strings.TrimRight(diffActual(t, first), "\n")))
	for _, r := range reqs {
		if r.Messages[0].Content == pack.GradeSystem && strings.Contains(r.Messages[1].Content, firstSize) {
			gradeUser = r.Messages[1].Content
			break
		}
	}
	golden(t, filepath.Join("testdata", "judge", "answer-user.txt"), answerUser)
	golden(t, filepath.Join("testdata", "judge", "grade-user.txt"), gradeUser)

	// Gates on the judged score.
	code, _, errOut = diffRun(t, env, "eval", out, "--judge", "gpt-5.4-nano", "--fail-on", "judged<5,continuity>5")
	if code != 1 || !strings.Contains(errOut, "judged<5 for nolinks") || strings.Contains(errOut, "continuity>5 for") {
		t.Errorf("gates: exit %d: %s", code, errOut)
	}

	// A rerun is answered from the cache: no request, no cost, the cost
	// saved recorded, the same scores.
	before := len(srv.requests())
	code, js2, errOut := diffRun(t, env, "eval", out, "--judge", "gpt-5.4-nano", "--json")
	if code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errOut)
	}
	if n := len(srv.requests()) - before; n != 0 {
		t.Errorf("the rerun sent %d requests", n)
	}
	var rep2 judgeReport
	if err := json.Unmarshal([]byte(js2), &rep2); err != nil {
		t.Fatal(err)
	}
	if rep2.Judge == nil || rep2.Judge.Cached != rep2.Judge.Calls || rep2.Judge.CostUSD != 0 || rep2.Judge.SavedUSD != rep.Judge.CostUSD {
		t.Errorf("rerun judge %+v, first %+v", rep2.Judge, rep.Judge)
	}
	for i, s := range rep2.Sides {
		if s.Judged == nil || rep.Sides[i].Judged == nil || s.Judged.Score != rep.Sides[i].Judged.Score {
			t.Errorf("rerun side %s scores differ", s.Name)
		}
	}
	// --no-cache asks again.
	before = len(srv.requests())
	if code, _, errOut := diffRun(t, env, "eval", first, "--judge", "gpt-5.4-nano", "--no-cache"); code != 0 || len(srv.requests())-before != 4 {
		t.Errorf("--no-cache: exit %d, %d requests: %s", code, len(srv.requests())-before, errOut)
	}
	filepath.Walk(cacheDir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), judgeKey) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
}
