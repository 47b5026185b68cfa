package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// This file is a small stand-in for the GitHub Actions runner, enough to
// run action.yml's composite steps on this machine: it evaluates the
// expressions action.yml uses (contexts inputs, steps, github, runner; ==,
// !=, !, &&, ||; always(), success(), failure(), cancelled()), runs each
// run: step as the runner does (bash --noprofile --norc -eo pipefail, in
// the workspace, with GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV and
// GITHUB_PATH files), and stands in for the three actions the gate uses
// (the caches miss; Go is already here).

// actionFile is action.yml.
type actionFile struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
		Required    bool   `yaml:"required"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Shell string            `yaml:"shell"`
	Run   string            `yaml:"run"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func readAction(t *testing.T) *actionFile {
	t.Helper()
	data, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return &a
}

// exprCtx holds the contexts an expression reads.
type exprCtx struct {
	inputs map[string]string
	steps  map[string]map[string]string // step id -> its outputs
	github map[string]string            // "run_id", "event.pull_request.number", …
	runner map[string]string
	failed bool // a step before failed
}

var exprRE = regexp.MustCompile(`\$\{\{(.*?)\}\}`)

// subst replaces every ${{ … }} of s by its value.
func (c *exprCtx) subst(s string) (string, error) {
	var firstErr error
	out := exprRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := c.eval(exprRE.FindStringSubmatch(m)[1])
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return toString(v)
	})
	return out, firstErr
}

// cond evaluates a step's if: as the runner does: without a status
// function, success() && the expression.
func (c *exprCtx) cond(expr string) (bool, error) {
	expr = strings.TrimSpace(expr)
	if m := regexp.MustCompile(`^\$\{\{(.*)\}\}$`).FindStringSubmatch(expr); m != nil {
		expr = m[1]
	}
	if expr == "" {
		return !c.failed, nil
	}
	v, err := c.eval(expr)
	if err != nil {
		return false, err
	}
	if !regexp.MustCompile(`\b(always|success|failure|cancelled)\(\)`).MatchString(expr) && c.failed {
		return false, nil
	}
	return truthy(v), nil
}

func toString(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case string:
		return v
	}
	return ""
}

func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case string:
		return v != ""
	}
	return false
}

var tokenRE = regexp.MustCompile(`\s*(\(|\)|!=|==|!|&&|\|\||'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_.-]*)`)

func (c *exprCtx) eval(expr string) (any, error) {
	var toks []string
	rest := strings.TrimSpace(expr)
	for rest != "" {
		loc := tokenRE.FindStringSubmatchIndex(rest)
		if loc == nil || loc[0] != 0 {
			return nil, fmt.Errorf("expression %q: cannot read %q", expr, rest)
		}
		toks = append(toks, rest[loc[2]:loc[3]])
		rest = strings.TrimSpace(rest[loc[1]:])
	}
	p := &exprParser{c: c, toks: toks}
	v, err := p.or()
	if err == nil && p.i != len(toks) {
		err = fmt.Errorf("expression %q: unexpected %q", expr, toks[p.i])
	}
	return v, err
}

type exprParser struct {
	c    *exprCtx
	toks []string
	i    int
}

func (p *exprParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *exprParser) or() (any, error) {
	v, err := p.and()
	for err == nil && p.peek() == "||" {
		p.i++
		var r any
		if r, err = p.and(); !truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) and() (any, error) {
	v, err := p.cmp()
	for err == nil && p.peek() == "&&" {
		p.i++
		var r any
		if r, err = p.cmp(); truthy(v) {
			v = r
		}
	}
	return v, err
}

func (p *exprParser) cmp() (any, error) {
	v, err := p.unary()
	if err != nil {
		return nil, err
	}
	if op := p.peek(); op == "==" || op == "!=" {
		p.i++
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		eq := strings.EqualFold(toString(v), toString(r))
		return eq == (op == "=="), nil
	}
	return v, nil
}

func (p *exprParser) unary() (any, error) {
	if p.peek() == "!" {
		p.i++
		v, err := p.unary()
		return !truthy(v), err
	}
	return p.primary()
}

func (p *exprParser) primary() (any, error) {
	tok := p.peek()
	p.i++
	switch {
	case tok == "(":
		v, err := p.or()
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing )")
		}
		p.i++
		return v, err
	case strings.HasPrefix(tok, "'"):
		return strings.ReplaceAll(tok[1:len(tok)-1], "''", "'"), nil
	case p.peek() == "(":
		p.i++
		if p.peek() != ")" {
			return nil, fmt.Errorf("%s(): arguments are not supported here", tok)
		}
		p.i++
		switch tok {
		case "always":
			return true, nil
		case "cancelled":
			return false, nil
		case "success":
			return !p.c.failed, nil
		case "failure":
			return p.c.failed, nil
		}
		return nil, fmt.Errorf("function %s() is not supported by this runner", tok)
	case tok == "":
		return nil, fmt.Errorf("expression ends early")
	}
	root, path, _ := strings.Cut(tok, ".")
	switch root {
	case "inputs":
		v, ok := p.c.inputs[path]
		if !ok {
			return nil, fmt.Errorf("inputs.%s is not an input of action.yml", path)
		}
		return v, nil
	case "steps":
		id, rest, _ := strings.Cut(path, ".")
		name, ok := strings.CutPrefix(rest, "outputs.")
		if !ok {
			return nil, fmt.Errorf("%s: only steps.ID.outputs.NAME is supported", tok)
		}
		return p.c.steps[id][name], nil
	case "github":
		return p.c.github[path], nil
	case "runner":
		return p.c.runner[path], nil
	}
	return nil, fmt.Errorf("%s: context %q is not supported by this runner", tok, root)
}

// gateRun is what one run of the action did.
type gateRun struct {
	failedStep string            // the first step that failed, "" when none
	ran        []string          // the names of the steps that ran
	outputs    map[string]string // the action's outputs
	log        string            // every run: step's stdout and stderr
	summary    string            // GITHUB_STEP_SUMMARY
	envFile    string            // GITHUB_ENV and GITHUB_PATH: must stay empty
}

func (r *gateRun) ranStep(name string) bool {
	for _, n := range r.ran {
		if n == name {
			return true
		}
	}
	return false
}

// gateEnv is where a run happens.
type gateEnv struct {
	action    string            // the action's directory (this repository)
	workspace string            // GITHUB_WORKSPACE, the steps' working directory
	temp      string            // RUNNER_TEMP
	env       []string          // the job's environment: the caller's env: included
	github    map[string]string // the github context
	cache     *fakeCache        // the repository's Actions cache, across runs
}

// fakeCache stands in for the Actions cache service: actions/cache/save
// copies a directory under a key (a key saved twice is an error, as
// GitHub refuses it); actions/cache/restore copies back the exact key's,
// else the newest whose key starts with a restore-keys prefix.
type fakeCache struct {
	dir   string
	saved []string // keys, oldest first
}

func (f *fakeCache) save(t *testing.T, key, path string) {
	t.Helper()
	if slices.Contains(f.saved, key) {
		t.Errorf("actions/cache/save: the key %s is saved already (GitHub refuses it)", key)
		return
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("actions/cache/save: path %s: %v", path, err)
		return
	}
	if err := os.CopyFS(filepath.Join(f.dir, fmt.Sprint(len(f.saved))), os.DirFS(path)); err != nil {
		t.Fatal(err)
	}
	f.saved = append(f.saved, key)
}

// restore returns whether the exact key was found.
func (f *fakeCache) restore(t *testing.T, key, restoreKeys, path string) bool {
	t.Helper()
	found, exact := -1, false
	if i := slices.Index(f.saved, key); i >= 0 {
		found, exact = i, true
	} else {
		for _, prefix := range strings.Fields(restoreKeys) {
			for i := len(f.saved) - 1; i >= 0 && found < 0; i-- {
				if strings.HasPrefix(f.saved[i], prefix) {
					found = i
				}
			}
		}
	}
	if found >= 0 {
		if err := os.CopyFS(path, os.DirFS(filepath.Join(f.dir, fmt.Sprint(found)))); err != nil {
			t.Fatalf("actions/cache/restore into %s: %v", path, err)
		}
	}
	return exact
}

// runAction runs action.yml's steps with inputs as a workflow's with:
// gives them, on a fresh runner: RUNNER_TEMP and the user's cache
// directory (XDG_CACHE_HOME) start empty, as on a new virtual machine; only
// the Actions cache carries anything from one run to the next.
func runAction(t *testing.T, a *actionFile, g *gateEnv, with map[string]string) *gateRun {
	t.Helper()
	fresh := []string{g.temp}
	for _, kv := range g.env {
		if d, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			fresh = append(fresh, filepath.Join(d, "compact"))
		}
	}
	for _, d := range fresh {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(g.temp, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &exprCtx{inputs: map[string]string{}, steps: map[string]map[string]string{}, github: g.github,
		runner: map[string]string{"os": "Linux", "arch": "X64", "temp": g.temp}}
	for k := range with {
		if _, ok := a.Inputs[k]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", k)
		}
	}
	for name, in := range a.Inputs {
		v, ok := with[name]
		if !ok {
			var err error
			if v, err = c.subst(in.Default); err != nil {
				t.Fatalf("inputs.%s default: %v", name, err)
			}
		}
		c.inputs[name] = v
	}
	dir := t.TempDir()
	summary, envFile, pathFile := filepath.Join(dir, "summary.md"), filepath.Join(dir, "env"), filepath.Join(dir, "path")
	for _, f := range []string{summary, envFile, pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := &gateRun{}
	var log strings.Builder
	for i, s := range a.Runs.Steps {
		run, err := c.cond(s.If)
		if err != nil {
			t.Fatalf("step %q if: %v", s.Name, err)
		}
		if !run {
			continue
		}
		res.ran = append(res.ran, s.Name)
		if s.Uses != "" {
			outs := map[string]string{}
			with := map[string]string{}
			for k, v := range s.With {
				ev, err := c.subst(v)
				if err != nil {
					t.Fatalf("step %q with.%s: %v", s.Name, k, err)
				}
				if strings.TrimSpace(ev) == "" {
					t.Errorf("step %q: with.%s is empty", s.Name, k)
				}
				with[k] = ev
			}
			action, _, _ := strings.Cut(s.Uses, "@")
			switch action {
			case "actions/cache/restore":
				outs["cache-hit"] = toString(g.cache.restore(t, with["key"], with["restore-keys"], with["path"]))
			case "actions/cache/save":
				g.cache.save(t, with["key"], with["path"])
			case "actions/setup-go":
				// Go is on this machine already.
				if _, err := os.Stat(with["go-version-file"]); err != nil {
					t.Errorf("step %q: go-version-file: %v", s.Name, err)
				}
			default:
				t.Fatalf("step %q uses %s, which this runner cannot stand in for", s.Name, s.Uses)
			}
			if s.ID != "" {
				c.steps[s.ID] = outs
			}
			continue
		}
		script, err := c.subst(s.Run)
		if err != nil {
			t.Fatalf("step %q run: %v", s.Name, err)
		}
		outFile := filepath.Join(dir, fmt.Sprintf("output-%d", i))
		if err := os.WriteFile(outFile, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		env := append([]string(nil), g.env...)
		env = append(env, "GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+summary, "GITHUB_ENV="+envFile,
			"GITHUB_PATH="+pathFile, "GITHUB_ACTION_PATH="+g.action, "GITHUB_WORKSPACE="+g.workspace,
			"RUNNER_TEMP="+g.temp, "RUNNER_OS=Linux", "GITHUB_REPOSITORY="+g.github["repository"],
			"GITHUB_EVENT_NAME="+g.github["event_name"], "CI=true", "GITHUB_ACTIONS=true")
		for k, v := range s.Env {
			ev, err := c.subst(v)
			if err != nil {
				t.Fatalf("step %q env.%s: %v", s.Name, k, err)
			}
			env = append(env, k+"="+ev)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env = g.workspace, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		fmt.Fprintf(&log, "== %s\n%s", s.Name, out.String())
		if err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatal(err)
			}
			c.failed = true
			if res.failedStep == "" {
				res.failedStep = s.Name
			}
		}
		outs, err := readOutputs(outFile)
		if err != nil {
			t.Fatalf("step %q: GITHUB_OUTPUT: %v", s.Name, err)
		}
		if s.ID != "" {
			c.steps[s.ID] = outs
		} else if len(outs) > 0 {
			t.Errorf("step %q writes outputs but has no id", s.Name)
		}
	}
	res.outputs = map[string]string{}
	for name, o := range a.Outputs {
		v, err := c.subst(o.Value)
		if err != nil {
			t.Fatalf("outputs.%s: %v", name, err)
		}
		res.outputs[name] = v
	}
	res.log = log.String()
	res.summary = readFile(t, summary)
	res.envFile = readFile(t, envFile) + readFile(t, pathFile)
	return res
}

// readOutputs reads a GITHUB_OUTPUT file: NAME=VALUE lines and
// NAME<<DELIMITER blocks.
func readOutputs(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	outs := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var lines []string
			for sc.Scan() && sc.Text() != delim {
				lines = append(lines, sc.Text())
			}
			outs[name] = strings.Join(lines, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %q is neither NAME=VALUE nor NAME<<DELIMITER", line)
		}
		outs[name] = value
	}
	return outs, sc.Err()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
