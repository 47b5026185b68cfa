package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/compactlab/compact/internal/batch/fakebatch"
)

// The CI gate: action.yml and its scripts (scripts/gate/), run here as
// GitHub would run them (gate_runner_test.go), against a loopback fake of
// OpenAI (chat completions and the Batch API) and a fake gh CLI.

// traceRE finds a script that traces its commands into the log.
var traceRE = regexp.MustCompile(`(?m)^\s*set\s+(-[a-z]*x|-o\s+xtrace)`)

var runLineRE = regexp.MustCompile(`^bash "\$GITHUB_ACTION_PATH/scripts/gate/([a-z-]+\.sh)"$`)

// TestGateActionWiring: every step of action.yml is a script that exists
// and parses, every script is a step; each script reads exactly the GATE_*
// variables its step's env: gives it; every input is declared and used;
// every step output read is one a step writes; the actions it uses are
// pinned by major version; no key goes through an input.
func TestGateActionWiring(t *testing.T) {
	a := readAction(t)
	if a.Runs.Using != "composite" || a.Name == "" || a.Description == "" {
		t.Fatalf("action.yml: using %q, name %q", a.Runs.Using, a.Name)
	}
	raw := readFile(t, "action.yml")
	lib := readFile(t, filepath.Join("scripts", "gate", "lib.sh"))
	gateVar := regexp.MustCompile(`\$\{?!?(GATE_[A-Z_]+)`)
	setOutput := regexp.MustCompile(`set_output ([a-z-]+) `)
	scripts := map[string]bool{}
	written := map[string]map[string]bool{} // step id -> outputs it writes
	ids := map[string]bool{}
	pinned := regexp.MustCompile(`^actions/(cache/restore|cache/save|setup-go)@v\d+$`)
	for _, s := range a.Runs.Steps {
		if s.Name == "" || (s.Uses == "") == (s.Run == "") {
			t.Errorf("step %q: wants a name and one of uses or run", s.Name)
			continue
		}
		if s.ID != "" {
			if ids[s.ID] {
				t.Errorf("step id %s twice", s.ID)
			}
			ids[s.ID] = true
			written[s.ID] = map[string]bool{}
		}
		if s.Uses != "" {
			if !pinned.MatchString(s.Uses) {
				t.Errorf("step %q uses %s: want one of actions/cache/restore, cache/save, setup-go pinned by major version (@vN)", s.Name, s.Uses)
			}
			if s.ID != "" && strings.HasPrefix(s.Uses, "actions/cache/restore@") {
				written[s.ID]["cache-hit"] = true
			}
			continue
		}
		m := runLineRE.FindStringSubmatch(s.Run)
		if s.Shell != "bash" || m == nil {
			t.Errorf("step %q: run %q, shell %q: want shell bash and run: bash \"$GITHUB_ACTION_PATH/scripts/gate/NAME.sh\"", s.Name, s.Run, s.Shell)
			continue
		}
		path := filepath.Join("scripts", "gate", m[1])
		scripts[m[1]] = true
		st, err := os.Stat(path)
		if err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("step %q: %s is not an executable file (%v)", s.Name, path, err)
			continue
		}
		if out, err := exec.Command("bash", "-n", path).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", path, err, out)
		}
		text := readFile(t, path)
		if !strings.Contains(text, `. "$(dirname "$0")/lib.sh"`) {
			t.Errorf("%s does not source lib.sh", path)
		}
		used := map[string]bool{}
		for _, v := range gateVar.FindAllStringSubmatch(text, -1) {
			if used[v[1]] {
				continue
			}
			used[v[1]] = true
			if _, ok := s.Env[v[1]]; !ok {
				t.Errorf("%s reads %s, which step %q does not set", path, v[1], s.Name)
			}
		}
		for k := range s.Env {
			if strings.HasPrefix(k, "GATE_") && !used[k] {
				t.Errorf("step %q sets %s, which %s never reads", s.Name, k, path)
			}
		}
		if (strings.Contains(text, "need_compact") || strings.Contains(text, `"$COMPACT"`)) && s.Env["COMPACT"] == "" {
			t.Errorf("step %q runs compact without COMPACT in its env", s.Name)
		}
		if traceRE.MatchString(text) {
			t.Errorf("%s traces its commands (set -x): keys could reach the log", path)
		}
		for _, o := range setOutput.FindAllStringSubmatch(text, -1) {
			if s.ID == "" {
				t.Errorf("step %q writes outputs and has no id", s.Name)
				break
			}
			written[s.ID][o[1]] = true
		}
	}
	if traceRE.MatchString(lib) {
		t.Error("lib.sh traces its commands (set -x)")
	}
	files, _ := filepath.Glob(filepath.Join("scripts", "gate", "*.sh"))
	for _, f := range files {
		if b := filepath.Base(f); b != "lib.sh" && !scripts[b] {
			t.Errorf("%s is no step of action.yml", f)
		}
	}

	// Inputs: declared where read, read where declared; no key among them.
	readIn := map[string]bool{}
	for _, m := range regexp.MustCompile(`inputs\.([a-z0-9-]+)`).FindAllStringSubmatch(raw, -1) {
		if readIn[m[1]] {
			continue
		}
		readIn[m[1]] = true
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml reads inputs.%s, which it does not declare", m[1])
		}
	}
	for name, in := range a.Inputs {
		if !readIn[name] {
			t.Errorf("input %s is declared and never used", name)
		}
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
		if strings.Contains(name, "api-key") {
			t.Errorf("input %s: keys go through the caller's env:, from secrets, never through an input", name)
		}
	}
	if strings.Contains(raw, "secrets.") {
		t.Error("action.yml reads secrets: a composite action gets keys through its caller's env: only")
	}
	// Step outputs: read only where a step writes them.
	for _, m := range regexp.MustCompile(`steps\.([a-z-]+)\.outputs\.([a-z-]+)`).FindAllStringSubmatch(raw, -1) {
		if w, ok := written[m[1]]; !ok {
			t.Errorf("action.yml reads %s: no step has the id %s", m[0], m[1])
		} else if !w[m[2]] {
			t.Errorf("action.yml reads %s, which that step never writes", m[0])
		}
	}
	if len(a.Outputs) == 0 {
		t.Error("action.yml has no outputs")
	}
}

// gateAnswer is the fake model: a briefing that copies the history, every
// path and item in it; under a system prompt that says TERSE-FAKE, the same
// with every path left out.
func gateAnswer(system, user string) string {
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(user, " ")
	if strings.Contains(system, "TERSE-FAKE") {
		text = regexp.MustCompile(`\S*[/\\]\S*`).ReplaceAllString(text, "")
	}
	return "## Work so far\n\n" + text + "\n\n## Current working state\n\nThe work goes on. Nothing is pending."
}

// gateFake is the loopback OpenAI: chat completions, and the Batch API of
// internal/batch/fakebatch, both answering with gateAnswer.
type gateFake struct {
	srv     *httptest.Server
	batches *fakebatch.Server
	chat    atomic.Int64 // chat-completion requests
	cancels atomic.Int64 // batch cancels
}

func newGateFake(t *testing.T, polls int) *gateFake {
	f := &gateFake{batches: fakebatch.New()}
	f.batches.Polls = polls
	f.batches.Answer = func(kind, model, system, user string) fakebatch.Reply {
		text := gateAnswer(system, user)
		return fakebatch.Reply{Text: text, In: (len(system) + len(user)) / 4, Out: len(text) / 4}
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/files") || strings.HasPrefix(r.URL.Path, "/v1/batches") {
			if strings.HasSuffix(r.URL.Path, "/cancel") {
				f.cancels.Add(1)
			}
			f.batches.ServeHTTP(w, r)
			return
		}
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		f.chat.Add(1)
		answer := gateAnswer(req.Messages[0].Content, req.Messages[1].Content)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-gate", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(answer) / 4, "total_tokens": (len(body) + len(answer)) / 4},
		})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// fakeGH is a gh CLI that records its arguments, whether it got the token,
// and the bodies it was given; listing comments answers FAKE_GH_EXISTING.
const fakeGH = `#!/usr/bin/env bash
{
	printf 'gh'; printf ' %s' "$@"; printf '\n'
	[[ ${GH_TOKEN:-} == "$FAKE_GH_WANT_TOKEN" ]] && echo "token: ok" || echo "token: wrong"
	for a in "$@"; do
		case $a in body=@*) printf 'body<<\n'; cat "${a#body=@}"; printf '\n>>body\n' ;; esac
	done
} >>"$FAKE_GH_LOG"
if [[ $1 == api && $2 == --paginate && -n ${FAKE_GH_EXISTING:-} ]]; then
	echo "$FAKE_GH_EXISTING"
fi
`

const gateKey = "sk-test-GATESECRET-7f3a9c"

// TestGateRunsLocally runs the action's steps in order, as the runner
// would, each run on a fresh runner with only the Actions cache carried
// over, against the fakes: the gate passes when the candidate keeps what
// the baseline kept and fails when it newly loses something; the report
// reaches the job summary and the pull request's comment (posted once,
// then updated); the next run restores the binary the first built and the
// response cache it saved, so the baseline costs nothing; batch: auto
// falls back for the builtin model; identical prompts are sent once;
// batches that do not end in time are cancelled and fail the gate; bad
// inputs stop it before anything runs; and the key is in nothing written
// or printed.
func TestGateRunsLocally(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	a := readAction(t)
	action, _ := filepath.Abs(".")
	fake := newGateFake(t, 0)
	root := t.TempDir()
	work, temp, home, ghDir := filepath.Join(root, "ws"), filepath.Join(root, "tmp"), filepath.Join(root, "home"), filepath.Join(root, "ghbin")
	for _, d := range []string{work, temp, home, ghDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join("examples", "stagewise", "instances.sqlite"), filepath.Join(work, "sessions", "instances.sqlite"))
	terse := filepath.Join("examples", "packs", "terse")
	for name, extra := range map[string]string{"base": "", "edited": "\nBe exact about names.\n", "terse-fake": "\nTERSE-FAKE\n", "terse": ""} {
		for _, f := range []string{"pack.json", "system-prompt.md"} {
			copyFile(t, filepath.Join(terse, f), filepath.Join(work, "packs", name, f))
		}
		sp := filepath.Join(work, "packs", name, "system-prompt.md")
		if err := os.WriteFile(sp, []byte(readFile(t, sp)+extra), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ghDir, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	ghLog := filepath.Join(root, "gh.log")
	const ghToken = "ghs-test-TOKEN-42"
	// The build step's go uses this machine's build and module caches
	// (HOME is the test's), so it links and downloads nothing.
	goEnv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
	if err != nil {
		t.Fatal(err)
	}
	goDirs := strings.Split(strings.TrimSpace(string(goEnv)), "\n")

	env := func(url string, extra ...string) []string {
		e := userEnv(home)
		for i, kv := range e {
			if strings.HasPrefix(kv, "PATH=") {
				e[i] = "PATH=" + ghDir + string(os.PathListSeparator) + kv[len("PATH="):]
			}
		}
		// The caller's env: (the key from secrets) and the test's.
		e = append(e, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "GOCACHE="+goDirs[0], "GOMODCACHE="+goDirs[1], "GOPATH="+goDirs[2], "GOENV="+goDirs[3])
		e = append(e, "OPENAI_API_KEY="+gateKey, "COMPACT_OPENAI_BASE_URL="+url, "COMPACT_BATCH_POLL_INTERVAL=20ms",
			"FAKE_GH_LOG="+ghLog, "FAKE_GH_WANT_TOKEN="+ghToken)
		return append(e, extra...)
	}
	cache := &fakeCache{dir: filepath.Join(root, "actions-cache")}
	runID := 1000
	// runner is a fresh runner of a new workflow run, on a pull request
	// (pr) or a push (pr ""), whose job has env.
	runner := func(pr string, env []string) *gateEnv {
		runID++
		g := map[string]string{"action_path": action, "repository": "compactlab/demo", "run_id": fmt.Sprint(runID),
			"run_attempt": "1", "token": ghToken, "event_name": "push", "workspace": work}
		if pr != "" {
			g["event_name"], g["event.pull_request.number"] = "pull_request", pr
		}
		return &gateEnv{action: action, workspace: work, temp: temp, env: env, github: g, cache: cache}
	}
	gh := func() string {
		data, err := os.ReadFile(ghLog)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(data)
	}
	// noKey checks that the key is in nothing the run printed or wrote
	// (the runner's ::add-mask:: command aside, which the runner takes
	// out of the log) and that it was masked.
	noKey := func(t *testing.T, r *gateRun) {
		t.Helper()
		if !strings.Contains(r.log, "::add-mask::"+gateKey) {
			t.Error("the key was not masked")
		}
		var kept []string
		for _, l := range strings.Split(r.log, "\n") {
			if !strings.HasPrefix(l, "::add-mask::") {
				kept = append(kept, l)
			}
		}
		texts := map[string]string{"log": strings.Join(kept, "\n"), "summary": r.summary, "gh": gh()}
		for k, v := range r.outputs {
			texts["output "+k] = v
		}
		for _, dir := range []string{temp, work, home} {
			_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return nil
				}
				// The compact binary aside, what the gate wrote is small.
				if info, err := d.Info(); err == nil && info.Size() < 8<<20 {
					if data, err := os.ReadFile(p); err == nil {
						texts[p] = string(data)
					}
				}
				return nil
			})
		}
		for where, text := range texts {
			if strings.Contains(text, "GATESECRET") {
				t.Errorf("the key is in %s", where)
			}
		}
		if r.envFile != "" {
			t.Errorf("the action wrote GITHUB_ENV or GITHUB_PATH (it must not change the caller's job): %q", r.envFile)
		}
	}
	sample := map[string]string{"extract-from": "stagewise", "extract-path": "sessions/instances.sqlite", "model": "gpt-5.4-nano"}
	with := func(extra map[string]string) map[string]string {
		w := map[string]string{}
		for k, v := range sample {
			w[k] = v
		}
		for k, v := range extra {
			w[k] = v
		}
		return w
	}
	const verdictStep = "Verdict"
	var compact string

	t.Run("passes", func(t *testing.T) {
		g := runner("7", env(fake.srv.URL))
		r := runAction(t, a, g, with(map[string]string{"baseline-pack": "packs/base", "pack": "packs/edited"}))
		if r.failedStep != "" {
			t.Fatalf("failed at %q\n%s", r.failedStep, r.log)
		}
		for _, s := range []string{"Restore the compact binary", "Set up Go", "Build compact", "Save the compact binary", "Restore the response cache", "Save the response cache", verdictStep} {
			if !r.ranStep(s) {
				t.Errorf("step %q did not run; ran %q", s, r.ran)
			}
		}
		if len(cache.saved) != 2 || !strings.HasPrefix(cache.saved[0], "compact-bin-Linux-X64-") || cache.saved[1] != "compact-responses-1001-1" {
			t.Errorf("caches saved: %q", cache.saved)
		}
		compact = r.outputs["compact"]
		if st, err := os.Stat(compact); err != nil || st.Mode()&0o111 == 0 {
			t.Fatalf("outputs.compact %q: %v", compact, err)
		}
		if r.outputs["verdict"] != "pass" || !strings.Contains(r.summary, "**compact gate: passed.**") ||
			!strings.Contains(r.summary, "## compact diff:") || !strings.Contains(r.summary, "<details><summary>compact eval:") ||
			!strings.Contains(r.summary, "through the batch API: $") {
			t.Errorf("verdict %q; summary:\n%s", r.outputs["verdict"], r.summary)
		}
		// Both runs went through the Batch API: 7 bundles each.
		if fake.batches.Requests() != 14 || fake.chat.Load() != 0 {
			t.Errorf("%d batch requests, %d chat requests; want 14 and 0", fake.batches.Requests(), fake.chat.Load())
		}
		log := gh()
		if !strings.Contains(log, "gh api -X POST repos/compactlab/demo/issues/7/comments -F body=@") ||
			!strings.Contains(log, "token: ok") || strings.Contains(log, "token: wrong") ||
			!strings.Contains(log, "body<<\n<!-- compact-gate:compact-gate -->\n**compact gate: passed.**") {
			t.Errorf("gh:\n%s", log)
		}
		comment := readFile(t, r.outputs["comment-file"])
		if !strings.Contains(comment, "## compact diff:") || !strings.Contains(log, comment) {
			t.Errorf("the comment posted is not the report:\n%s", comment)
		}
		noKey(t, r)
	})
	if compact == "" {
		t.FailNow()
	}
	bin := filepath.Join(root, "compact")
	copyFile(t, compact, bin)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}

	t.Run("fails when the candidate newly loses paths", func(t *testing.T) {
		batchBefore := fake.batches.Requests()
		g := runner("7", env(fake.srv.URL, "FAKE_GH_EXISTING=4242"))
		r := runAction(t, a, g, with(map[string]string{"baseline-pack": "packs/base", "pack": "packs/terse-fake",
			"batch": "false", "compact-binary": bin}))
		if r.failedStep != verdictStep || r.outputs["verdict"] != "fail" {
			t.Fatalf("failed at %q, verdict %q; want the verdict step to fail\n%s", r.failedStep, r.outputs["verdict"], r.log)
		}
		if r.ranStep("Build compact") {
			t.Error("built compact although compact-binary was given")
		}
		if !strings.Contains(r.outputs["reason"], "newly-lost") || !strings.Contains(r.summary, "**compact gate: failed.**") ||
			!strings.Contains(r.summary, "Newly lost paths") {
			t.Errorf("reason %q; summary:\n%s", r.outputs["reason"], r.summary)
		}
		// The baseline was answered from the response cache the first run
		// filled (batch and interactive requests share it): only the
		// candidate's 7 requests were sent.
		if fake.chat.Load() != 7 || fake.batches.Requests() != batchBefore {
			t.Errorf("%d chat requests and %d more batch requests; want 7 and 0\n%s", fake.chat.Load(), fake.batches.Requests()-batchBefore, r.log)
		}
		// The comment of the first run is updated, not posted again.
		log := gh()
		if !strings.Contains(log, "gh api -X PATCH repos/compactlab/demo/issues/comments/4242 -F body=@") ||
			strings.Count(log, "-X POST") != 1 || !strings.Contains(log, "**compact gate: failed.**") {
			t.Errorf("gh:\n%s", log)
		}
		noKey(t, r)
	})

	t.Run("builtin without a batch API, outside a pull request", func(t *testing.T) {
		before := gh()
		g := runner("", env(fake.srv.URL))
		r := runAction(t, a, g, with(map[string]string{"model": "builtin", "baseline-pack": "default", "pack": "packs/terse",
			"eval-fail-on": "lost>0"}))
		if r.failedStep != verdictStep || !strings.Contains(r.log, "has no batch API; replaying it one request at a time") {
			t.Fatalf("failed at %q\n%s", r.failedStep, r.log)
		}
		// The binary the first run built and saved is restored, not built
		// again; the builtin model's answers are not cached, so nothing
		// new is saved.
		if !r.ranStep("Restore the compact binary") || r.ranStep("Set up Go") || r.ranStep("Build compact") || r.ranStep("Save the response cache") {
			t.Errorf("ran %q", r.ran)
		}
		if !strings.Contains(r.outputs["reason"], "newly-lost") || !strings.Contains(r.outputs["reason"], "lost>0") {
			t.Errorf("reason %q: want diff's and eval's gates", r.outputs["reason"])
		}
		if gh() != before || !strings.Contains(r.log, "not a pull request: no comment") {
			t.Errorf("gh was called outside a pull request:\n%s", gh())
		}
		if !strings.Contains(r.summary, "replayed one request at a time: 7 bundles: 7 ok") {
			t.Errorf("summary:\n%s", r.summary)
		}
		noKey(t, r)
	})

	t.Run("the same prompts are paid for once", func(t *testing.T) {
		before := fake.batches.Requests()
		g := runner("", env(fake.srv.URL))
		r := runAction(t, a, g, with(map[string]string{"model": "gpt-5.4-mini", "baseline-pack": "packs/base", "pack": "packs/terse",
			"batch": "true", "compact-binary": bin}))
		if r.failedStep != "" || r.outputs["verdict"] != "pass" {
			t.Fatalf("failed at %q\n%s", r.failedStep, r.log)
		}
		// packs/terse holds what packs/base does: the candidate's requests
		// are the baseline's, answered from the response cache.
		if got := fake.batches.Requests() - before; got != 7 {
			t.Errorf("%d batch requests; want the baseline's 7 only", got)
		}
		noKey(t, r)
	})

	t.Run("batches that do not end in time", func(t *testing.T) {
		slow := newGateFake(t, 1<<30)
		g := runner("8", env(slow.srv.URL))
		r := runAction(t, a, g, with(map[string]string{"model": "gpt-5.4-mini", "baseline-pack": "packs/base", "pack": "packs/edited",
			"batch": "true", "batch-timeout": "1s", "poll-interval": "50ms", "compact-binary": bin}))
		if r.failedStep != "Replay the baseline and the candidate" ||
			!strings.Contains(r.log, "::error title=compact gate::the batches of run baseline did not end within batch-timeout (1s) and were cancelled") {
			t.Fatalf("failed at %q\n%s", r.failedStep, r.log)
		}
		// The baseline's batch, cancelled; the candidate's never sent.
		if slow.cancels.Load() != 1 || slow.batches.Created() != 1 {
			t.Errorf("%d batches created, %d cancelled; want 1 and 1", slow.batches.Created(), slow.cancels.Load())
		}
		// No report, so no comment; nothing was answered, so no cache to save.
		if r.ranStep(verdictStep) || r.ranStep("Comment on the pull request") || r.ranStep("Save the response cache") {
			t.Errorf("ran %q", r.ran)
		}
		noKey(t, r)
	})

	t.Run("bad inputs stop it first", func(t *testing.T) {
		for _, tc := range []struct {
			with map[string]string
			want string
		}{
			{map[string]string{"bundles": "sessions"}, "bundles and extract-from: give one of them"},
			{map[string]string{"batch": "sometimes"}, "batch: want auto, true or false, got 'sometimes'"},
			{map[string]string{"run": "baseline"}, "run and baseline-run: both are 'baseline'"},
			{map[string]string{"pack": "packs/nowhere"}, "pack: packs/nowhere is not a directory"},
			{map[string]string{"batch-timeout": "soon"}, "batch-timeout: want a time such as 90m"},
			{map[string]string{"extract-path": "nowhere.sqlite"}, "extract-path: nowhere.sqlite does not exist"},
			{map[string]string{"comment-tag": "a b"}, "comment-tag: want letters"},
		} {
			w := with(tc.with)
			w["compact-binary"] = bin
			g := runner("7", env(fake.srv.URL))
			r := runAction(t, a, g, w)
			if r.failedStep != "Check the inputs" || !strings.Contains(r.log, "::error title=compact gate::"+tc.want) || len(r.ran) != 1 {
				t.Errorf("%v: failed at %q after %q\n%s", tc.with, r.failedStep, r.ran, r.log)
			}
		}
	})
}

// TestGateDocsWorkflows: the workflows docs/ci.md shows (and its
// fragments of steps) use the action with inputs it has, give keys
// through env: from secrets only, pin the actions they use by major
// version, the same majors as action.yml's, and cover a pull request and
// a schedule.
func TestGateDocsWorkflows(t *testing.T) {
	a := readAction(t)
	majors := map[string]string{} // owner/repo -> @ref in action.yml
	for _, s := range a.Runs.Steps {
		if name, ref, ok := strings.Cut(s.Uses, "@"); ok {
			parts := strings.SplitN(name, "/", 3)
			majors[parts[0]+"/"+parts[1]] = ref
		}
	}
	type step struct {
		Uses string            `yaml:"uses"`
		With map[string]any    `yaml:"with"`
		Env  map[string]string `yaml:"env"`
	}
	secret := regexp.MustCompile(`^\$\{\{ secrets\.[A-Z_]+ \}\}$`)
	var gates int
	check := func(where string, steps []step) {
		for _, s := range steps {
			name, ref, _ := strings.Cut(s.Uses, "@")
			switch {
			case name == "compactlab/compact":
				gates++
				for k := range s.With {
					if _, ok := a.Inputs[k]; !ok {
						t.Errorf("docs/ci.md %s: with.%s is not an input of action.yml", where, k)
					}
				}
				for k, v := range s.Env {
					if !strings.HasSuffix(k, "_API_KEY") || !secret.MatchString(v) {
						t.Errorf("docs/ci.md %s: env.%s = %q: want keys from secrets only", where, k, v)
					}
				}
			case strings.HasPrefix(name, "actions/"):
				if !regexp.MustCompile(`^v\d+$`).MatchString(ref) {
					t.Errorf("docs/ci.md %s: %s is not pinned by major version", where, s.Uses)
				}
				parts := strings.SplitN(name, "/", 3)
				if m, ok := majors[parts[0]+"/"+parts[1]]; ok && m != ref {
					t.Errorf("docs/ci.md %s uses %s, action.yml %s@%s", where, s.Uses, name, m)
				}
			}
		}
	}
	var events []string
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(readFile(t, filepath.Join("docs", "ci.md")), -1)
	for i, b := range blocks {
		var wf struct {
			On   map[string]any `yaml:"on"`
			Jobs map[string]struct {
				Steps []step `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(b[1]), &wf); err == nil && wf.Jobs != nil {
			for e := range wf.On {
				events = append(events, e)
			}
			for job, j := range wf.Jobs {
				check("job "+job, j.Steps)
			}
			continue
		}
		var steps []step // a fragment: steps of a job
		if err := yaml.Unmarshal([]byte(b[1]), &steps); err != nil {
			t.Fatalf("docs/ci.md yaml block %d is neither a workflow nor a list of steps: %v", i+1, err)
		}
		check(fmt.Sprintf("block %d", i+1), steps)
	}
	if gates < 3 || !slices.Contains(events, "pull_request") || !slices.Contains(events, "schedule") {
		t.Errorf("docs/ci.md: %d uses of the action, events %q; want a pull_request and a schedule", gates, events)
	}
}

// TestGateCommentFitsGitHub: a report over GitHub's 65,536 characters
// goes whole to the job summary, and to the comment without eval's tables,
// or cut at a line when diff's alone is too long. compact is a script
// here, printing a report of the size asked.
func TestGateCommentFitsGitHub(t *testing.T) {
	for _, tc := range []struct {
		name           string
		diffKB, evalKB int
		want, wantNot  string
		wholeInComment bool
	}{
		{"small", 10, 10, "<details><summary>compact eval:", "job summary", true},
		{"eval left out", 30, 50, "_compact eval's tables are in the job summary._", "<details><summary>compact eval:", false},
		{"cut", 100, 0, "_Cut here: the whole report is in the job summary._", "<details><summary>compact eval:", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			line := "| `001-chat/compression-001` | `src/components/Button.tsx` |\n"
			diffMD := "## compact diff: 7 bundles compared\n\n" + strings.Repeat(line, tc.diffKB*1024/len(line))
			if err := os.WriteFile(filepath.Join(dir, "diff.md"), []byte(diffMD), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.evalKB > 0 {
				evalMD := "## compact eval\n\n" + strings.Repeat("| actual | 7 | 0.976 |\n", tc.evalKB*1024/23)
				if err := os.WriteFile(filepath.Join(work, "eval.md"), []byte(evalMD), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fake := filepath.Join(dir, "compact")
			script := "#!/usr/bin/env bash\ncat " + filepath.Join(dir, "diff.md") +
				"\necho 'compact diff: --fail-on newly-lost: run candidate lost 3 must-keep items that the baseline baseline kept, in 1 bundle' >&2\nexit 1\n"
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			summary, out := filepath.Join(dir, "summary.md"), filepath.Join(dir, "out")
			cmd := exec.Command("bash", filepath.Join("scripts", "gate", "diff.sh"))
			cmd.Env = append(os.Environ(), "COMPACT="+fake, "COMPACT_CONFIG=", "GATE_BUNDLES_DIR=bundles", "GATE_RUN=candidate",
				"GATE_BASELINE_RUN=baseline", "GATE_FAIL_ON=newly-lost", "GATE_EVAL_FAILED=false", "GATE_EVAL_REASON=",
				"GATE_REPLAY_INCOMPLETE=false", "GATE_COMMENT_TAG=t", "GATE_WORK="+work,
				"GITHUB_STEP_SUMMARY="+summary, "GITHUB_OUTPUT="+out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("diff.sh: %v\n%s", err, b)
			}
			outs, err := readOutputs(out)
			if err != nil {
				t.Fatal(err)
			}
			comment := readFile(t, outs["comment-file"])
			whole := readFile(t, summary)
			if outs["verdict"] != "fail" || !strings.HasPrefix(comment, "<!-- compact-gate:t -->\n**compact gate: failed.** compact diff: --fail-on newly-lost") {
				t.Errorf("verdict %q, comment starts %.200q", outs["verdict"], comment)
			}
			if len(comment) > 65000 || !strings.Contains(comment, tc.want) || strings.Contains(comment, tc.wantNot) {
				t.Errorf("comment of %d bytes; want at most 65,000 with %q and without %q; it ends %q", len(comment), tc.want, tc.wantNot, comment[max(0, len(comment)-200):])
			}
			if !strings.Contains(whole, diffMD) || (tc.evalKB > 0 && !strings.Contains(whole, "<details><summary>compact eval:")) {
				t.Error("the job summary does not hold the whole report")
			}
			if (comment == whole) != tc.wholeInComment {
				t.Errorf("comment is the whole report: %v, want %v", comment == whole, tc.wholeInComment)
			}
		})
	}
}
