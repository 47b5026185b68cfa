package eval

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/cascade"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/workpool"
)

// The model-judged score follows the published method for context
// compression (Factory, "Evaluating context compression", 2025): an
// answerer that sees only the briefing answers the probe questions, and a
// judge grades each answer from 0 to 5 on six dimensions.

// Dimensions are the judge's rubric, in the order a grade lists them.
var Dimensions = []string{"accuracy", "context_awareness", "artifact_trail", "completeness", "continuity", "instruction_following"}

// Grades are one answer's grades, 0 to 5 each.
type Grades struct {
	Accuracy             float64 `json:"accuracy"`
	ContextAwareness     float64 `json:"context_awareness"`
	ArtifactTrail        float64 `json:"artifact_trail"`
	Completeness         float64 `json:"completeness"`
	Continuity           float64 `json:"continuity"`
	InstructionFollowing float64 `json:"instruction_following"`
}

func (g *Grades) ptrs() []*float64 {
	return []*float64{&g.Accuracy, &g.ContextAwareness, &g.ArtifactTrail, &g.Completeness, &g.Continuity, &g.InstructionFollowing}
}

// Get is the grade of dimension d (one of Dimensions).
func (g Grades) Get(d string) float64 {
	for i, name := range Dimensions {
		if name == d {
			return *g.ptrs()[i]
		}
	}
	return math.NaN()
}

// Mean is the mean of the six grades.
func (g Grades) Mean() float64 {
	s := 0.0
	for _, p := range g.ptrs() {
		s += *p
	}
	return s / float64(len(Dimensions))
}

// JudgePack holds the judge's four prompts. The user templates name what
// goes in them: {{briefing}} and {{questions}} in answer-user.md,
// {{probes}} and {{answers}} in grade-user.md.
type JudgePack struct {
	// Name is "default" or the directory the pack was read from.
	Name         string `json:"name"`
	AnswerSystem string `json:"-"`
	AnswerUser   string `json:"-"`
	GradeSystem  string `json:"-"`
	GradeUser    string `json:"-"`
}

// JudgePackFiles are the files of a judge pack directory.
var JudgePackFiles = []string{"answer-system.md", "answer-user.md", "grade-system.md", "grade-user.md"}

//go:embed judgepack/*.md
var judgePackFS embed.FS

// DefaultJudgePack is the built-in judge pack.
func DefaultJudgePack() *JudgePack {
	p, err := readJudgePack(judgePackFS, "judgepack")
	if err != nil {
		panic(err)
	}
	p.Name = "default"
	return p
}

var placeholders = map[string][]string{
	"answer-user.md": {"{{briefing}}", "{{questions}}"},
	"grade-user.md":  {"{{probes}}", "{{answers}}"},
}

func readJudgePack(fsys fs.FS, dir string) (*JudgePack, error) {
	p := &JudgePack{}
	dst := []*string{&p.AnswerSystem, &p.AnswerUser, &p.GradeSystem, &p.GradeUser}
	for i, name := range JudgePackFiles {
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		text := string(data)
		for _, ph := range placeholders[name] {
			if !strings.Contains(text, ph) {
				return nil, fmt.Errorf("%s has no %s: the template must say where it goes", name, ph)
			}
		}
		*dst[i] = text
	}
	return p, nil
}

// LoadJudgePack reads a judge pack directory (see WriteJudgePack).
//
// A file of the pack that is a named pipe, a socket or a device is refused
// from its stat, before it is opened (a *fsutil.NotRegularError).
func LoadJudgePack(dir string) (*JudgePack, error) {
	var nr *fsutil.NotRegularError
	if _, err := fsutil.CheckInput(dir); errors.As(err, &nr) {
		return nil, fmt.Errorf("judge pack %s is %s, not a directory", dir, nr.Kind)
	}
	for _, name := range JudgePackFiles {
		st, err := fsutil.CheckInput(filepath.Join(dir, name))
		if errors.As(err, &nr) {
			return nil, fmt.Errorf("judge pack %s: %w", dir, err)
		}
		if err != nil || st.IsDir() {
			return nil, fmt.Errorf("judge pack %s: %s is missing; write a complete pack with `compact eval --write-judge-pack %s` and edit it", dir, name, dir)
		}
		if st.Size() > 1<<20 {
			return nil, fmt.Errorf("judge pack %s: %s is over 1 MiB", dir, name)
		}
	}
	p, err := readJudgePack(limitedDirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("judge pack %s: %w", dir, err)
	}
	p.Name = dir
	return p, nil
}

// limitedDirFS is os.DirFS(dir) whose files are read as
// fsutil.ReadFileLimit reads them: a special file refused before it is
// opened, at most 1 MiB.
type limitedDirFS string

func (d limitedDirFS) Open(name string) (fs.File, error) { return os.DirFS(string(d)).Open(name) }

func (d limitedDirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	return fsutil.ReadFileLimit(filepath.Join(string(d), filepath.FromSlash(name)), 1<<20)
}

// WriteJudgePack writes the built-in pack's files into dir (created when
// missing), to be edited; it overwrites none.
func WriteJudgePack(dir string) error {
	for _, name := range JudgePackFiles {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("%s already exists; write the pack into an empty directory", filepath.Join(dir, name))
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range JudgePackFiles {
		data, _ := judgePackFS.ReadFile("judgepack/" + name)
		f, err := fsutil.CreateTemp(dir, "."+name+".", ".tmp")
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), filepath.Join(dir, name))
		}
		fsutil.Release(f.Name())
		if err != nil {
			os.Remove(f.Name())
			return err
		}
	}
	return nil
}

// Hash identifies the pack's content (12 hex digits).
func (p *JudgePack) Hash() string {
	h := sha256.New()
	for _, s := range []string{p.AnswerSystem, p.AnswerUser, p.GradeSystem, p.GradeUser} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Question is one question put to the answerer: the probes that share a
// question text are asked once, and their expected answers are the
// reference together.
type Question struct {
	N        int      `json:"n"` // 1-based, as asked (Q1, Q2, …)
	Kind     Kind     `json:"kind"`
	Text     string   `json:"question"`
	Expected []string `json:"expected"`
	Probes   []int    `json:"probes"` // indexes in the bundle's probes
}

// Questions groups probes by question and picks at most max of them (all
// when max <= 0), taking the kinds in turn (Kinds order) so that a long
// artifact trail does not crowd out the rest; within a kind, in the
// probes' order. At most maxExpected answers are listed per question.
func Questions(probes []Probe, max int) []Question {
	const maxExpected = 12
	byKind := map[Kind][]*Question{}
	index := map[string]*Question{}
	for i := range probes {
		p := &probes[i]
		key := string(p.Kind) + "\x00" + p.Question
		q := index[key]
		if q == nil {
			q = &Question{Kind: p.Kind, Text: p.Question}
			index[key] = q
			byKind[p.Kind] = append(byKind[p.Kind], q)
		}
		q.Probes = append(q.Probes, i)
		if len(q.Expected) < maxExpected {
			q.Expected = append(q.Expected, p.shown())
		}
	}
	var out []Question
	for round := 0; ; round++ {
		added := false
		for _, k := range Kinds {
			qs := byKind[k]
			if round < len(qs) && (max <= 0 || len(out) < max) {
				out = append(out, *qs[round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// JudgedAnswer is the answerer's answer to one question from one briefing,
// and its grades (nil when the judge gave none).
type JudgedAnswer struct {
	Q      int     `json:"q"`
	Answer string  `json:"answer"`
	Grades *Grades `json:"grades"`
	Score  float64 `json:"score"` // mean of the grades, 0 when ungraded
}

// JudgedBriefing is one briefing's judged score: the mean of its answers'
// scores (0 to 5), per dimension and per kind.
type JudgedBriefing struct {
	Name       string             `json:"name"`
	Score      float64            `json:"score"`
	Dimensions map[string]float64 `json:"dimensions"`
	Kinds      map[Kind]float64   `json:"kinds"`
	Ungraded   int                `json:"ungraded"`
	Answers    []JudgedAnswer     `json:"answers"`
	// Repeats are the scores of the judge's repeats, the first (Score)
	// included, when the bundle was judged more than once (eval
	// --judge-repeat K > 1); never in a record, which is one repeat's.
	Repeats []float64 `json:"repeats,omitempty"`
}

// JudgeCall is one model call of the judge.
type JudgeCall struct {
	// Purpose is "answer <briefing>" or "grade".
	Purpose   string        `json:"purpose"`
	Model     string        `json:"model"`
	Cached    bool          `json:"cached"`
	Usage     cascade.Usage `json:"usage"`
	CostUSD   float64       `json:"costUsd"`
	SavedUSD  float64       `json:"savedUsd,omitempty"`
	LatencyMs int64         `json:"latencyMs"`
	Error     string        `json:"error,omitempty"`
	// Repeat is which repeat of the judging made the call, from the
	// second on (JudgeOptions.Repeats).
	Repeat int `json:"repeat,omitempty"`
}

// JudgeRecord is the judged evaluation of one bundle: what was asked, the
// order the answer sets were shown to the judge in (randomized, fixed by
// the content), the calls with their cost, and each briefing's answers and
// grades. It is written to <bundle>/judge/<run>.json.
type JudgeRecord struct {
	Judge     string           `json:"judge"`
	Pack      string           `json:"pack"`
	PackHash  string           `json:"packHash"`
	Questions []Question       `json:"questions"`
	Order     []string         `json:"order"`
	Briefings []JudgedBriefing `json:"briefings"`
	Calls     []JudgeCall      `json:"calls"`
	CostUSD   float64          `json:"costUsd"`
	SavedUSD  float64          `json:"savedUsd"`
	File      string           `json:"file,omitempty"`
	// Repeat is which repeat of the judging this is, from the second on
	// (JudgeOptions.Repeats): the record of repeat I of run RUN is RUN@I.
	Repeat int `json:"repeat,omitempty"`
}

// JudgeSummary is what a BundleResult carries of its JudgeRecord (the
// briefings' scores are on each BriefingScore). A bundle judged K > 1
// times (JudgeOptions.Repeats) carries the first repeat's record, with
// every repeat's calls and cost.
type JudgeSummary struct {
	Judge     string      `json:"judge"`
	PackHash  string      `json:"packHash"`
	Questions []Question  `json:"questions"`
	Order     []string    `json:"order"`
	Calls     []JudgeCall `json:"calls"`
	CostUSD   float64     `json:"costUsd"`
	SavedUSD  float64     `json:"savedUsd"`
	File      string      `json:"file,omitempty"`
	Error     string      `json:"error,omitempty"`
	// Repeats is how many times the bundle was judged, when more than
	// once (JudgeOptions.Repeats).
	Repeats int `json:"repeats,omitempty"`
}

// Generator is what the judge calls: *cascade.Cascade.
type Generator interface {
	Run(ctx context.Context, in cascade.Input, order []string) (*cascade.Outcome, error)
}

// JudgeOptions steer Judge.
type JudgeOptions struct {
	Model Generator
	// Order is the model (or models) to call, as for cascade.Run.
	Order []string
	// Judge names the judge in records (the model id).
	Judge string
	Pack  *JudgePack
	// MaxQuestions bounds the questions per bundle (Questions).
	MaxQuestions int
	// Run names the record file, <bundle>/judge/<Run>.json; no file is
	// written when empty.
	Run string
	// Repeats is how many times Judge judges each bundle (eval
	// --judge-repeat K; 0 or 1: once), since the same model on the same
	// input varies from one call to the next. Repeat 1 is the plain
	// judging; repeat I > 1 is recorded as Run@I (replay.RepeatRun) and
	// its every request carries I (cascade.Input.Repeat), so that the
	// response cache keeps it apart from the other repeats.
	Repeats int
}

// AnswerPrompt is the answerer's request for one briefing.
func (p *JudgePack) AnswerPrompt(briefing string, qs []Question) cascade.Input {
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "Q%d: %s", q.N, q.Text)
	}
	user := strings.NewReplacer("{{briefing}}", strings.TrimRight(briefing, "\n"), "{{questions}}", b.String()).Replace(p.AnswerUser)
	return cascade.Input{System: p.AnswerSystem, User: user}
}

// GradePrompt is the judge's request: the questions with their reference
// answers, then each answer set under its letter, in the order given.
func (p *JudgePack) GradePrompt(qs []Question, sets [][]string) cascade.Input {
	var pb strings.Builder
	for i, q := range qs {
		if i > 0 {
			pb.WriteByte('\n')
		}
		fmt.Fprintf(&pb, "Q%d (%s): %s\nReference: %s", q.N, q.Kind, q.Text, strings.Join(q.Expected, "; "))
	}
	var ab strings.Builder
	for s, answers := range sets {
		if s > 0 {
			ab.WriteString("\n\n")
		}
		fmt.Fprintf(&ab, "Answer set %c:", 'A'+s)
		for i, q := range qs {
			fmt.Fprintf(&ab, "\nQ%d: %s", q.N, oneLine(answers[i]))
		}
	}
	user := strings.NewReplacer("{{probes}}", pb.String(), "{{answers}}", ab.String()).Replace(p.GradeUser)
	return cascade.Input{System: p.GradeSystem, User: user}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no answer)"
	}
	return strings.Join(strings.Fields(s), " ")
}

var answerLine = regexp.MustCompile(`^\s*(?:[-*>]\s*)?\**\s*Q(\d+)\s*\**\s*[:.)\-–]\**\s*(.*)$`)

// ParseAnswers reads "Q1: …" lines (a line without a label continues the
// answer before it); answers missing from the text are "".
func ParseAnswers(text string, n int) []string {
	out := make([]string, n)
	cur := -1
	for _, line := range strings.Split(text, "\n") {
		if m := answerLine.FindStringSubmatch(line); m != nil {
			k, err := strconv.Atoi(m[1])
			if err == nil && k >= 1 && k <= n {
				cur = k - 1
				out[cur] = strings.TrimSpace(m[2])
				continue
			}
		}
		if t := strings.TrimSpace(line); cur >= 0 && t != "" && !strings.HasPrefix(t, "```") {
			out[cur] = strings.TrimSpace(out[cur] + " " + t)
		}
	}
	return out
}

// ParseGrades reads the judge's JSON objects, one per question and set, as
// {"q": 1, "set": "A", "accuracy": 4, …}, anywhere in the text (code
// fences, prose and one array of them are tolerated). Grades are clamped
// to 0..5; an object missing a dimension is skipped. The result is
// indexed [set][question], nil where no grade came.
func ParseGrades(text string, sets, n int) [][]*Grades {
	out := make([][]*Grades, sets)
	for i := range out {
		out[i] = make([]*Grades, n)
	}
	for _, obj := range jsonObjects(text) {
		var raw map[string]any
		if json.Unmarshal([]byte(obj), &raw) != nil {
			continue
		}
		q, ok := asInt(raw["q"])
		if !ok {
			q, ok = asInt(raw["question"])
		}
		set, _ := raw["set"].(string)
		set = strings.ToUpper(strings.TrimSpace(set))
		if !ok || q < 1 || q > n || len(set) != 1 || int(set[0]-'A') >= sets || set[0] < 'A' {
			continue
		}
		var g Grades
		complete := true
		for i, d := range Dimensions {
			v, ok := asFloat(raw[d])
			if !ok {
				complete = false
				break
			}
			*g.ptrs()[i] = math.Max(0, math.Min(5, v))
		}
		if complete {
			out[set[0]-'A'][q-1] = &g
		}
	}
	return out
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil && !math.IsNaN(f)
	}
	return 0, false
}

func asInt(v any) (int, bool) {
	f, ok := asFloat(v)
	if !ok {
		if s, isStr := v.(string); isStr {
			s = strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "Q")
			n, err := strconv.Atoi(s)
			return n, err == nil
		}
		return 0, false
	}
	return int(f), f == math.Trunc(f)
}

// jsonObjects returns the balanced {…} spans of text that hold no nested
// object, skipping string contents.
func jsonObjects(text string) []string {
	var out []string
	start, inStr, esc := -1, false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"' && start >= 0:
			inStr = true
		case c == '{':
			start = i
		case c == '}' && start >= 0:
			out = append(out, text[start:i+1])
			start = -1
		}
	}
	return out
}

// shuffleOrder is the order the briefings' answer sets are shown to the
// judge: a permutation fixed by the bundle's content (its questions and
// the briefings' names), so that a rerun asks the same thing and is
// answered from the cache, while no briefing is always first.
func shuffleOrder(names []string, qs []Question) []string {
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00", n)
	}
	for _, q := range qs {
		fmt.Fprintf(h, "%s\x00%s\x00", q.Text, strings.Join(q.Expected, "\x01"))
	}
	sum := h.Sum(nil)
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
	out := append([]string(nil), names...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (o JudgeOptions) call(ctx context.Context, purpose string, in cascade.Input) (string, JudgeCall, error) {
	out, err := o.Model.Run(ctx, in, o.Order)
	c := JudgeCall{Purpose: purpose, Model: o.Judge}
	if out != nil {
		c.Cached, c.Usage, c.CostUSD, c.SavedUSD, c.LatencyMs = out.Cached, out.Usage, out.CostUSD, out.SavedUSD, out.LatencyMs
		if out.Model != "" {
			c.Model = out.Model
		}
	}
	if err != nil {
		c.Error = err.Error()
		return "", c, err
	}
	return out.Text, c, nil
}

// JudgeTask is the judging of one bundle, in the judge's two steps: an
// answer from each briefing, then one grade of them all. Judge takes both
// at once; compact eval --judge --batch sends them through the providers'
// batch APIs, the grade once every answer is in, possibly in another
// process: a task is rebuilt from the bundle at each step, and asks the
// same thing each time.
type JudgeTask struct {
	R         *BundleResult
	Questions []Question
	// Names are the briefings, in the bundle's order.
	Names []string
	pack  *JudgePack
	opt   JudgeOptions
	rec   *JudgeRecord
	// repeat is which repeat of the judging this is (1: the plain one).
	repeat int
}

// NewJudgeTask is the judging of r with opt; nil when r has no question
// to ask or no briefing to ask it of (such a bundle is left alone). It is
// the first repeat, whatever opt.Repeats.
func NewJudgeTask(r *BundleResult, opt JudgeOptions) *JudgeTask {
	return newJudgeTask(r, opt, 1)
}

// newJudgeTask is NewJudgeTask for repeat i of the judging.
func newJudgeTask(r *BundleResult, opt JudgeOptions, i int) *JudgeTask {
	qs := Questions(r.Probes, opt.MaxQuestions)
	if len(qs) == 0 || len(r.Briefings) == 0 {
		return nil
	}
	pack := opt.Pack
	if pack == nil {
		pack = DefaultJudgePack()
	}
	t := &JudgeTask{R: r, Questions: qs, pack: pack, opt: opt, repeat: max(i, 1),
		rec: &JudgeRecord{Judge: opt.Judge, Pack: pack.Name, PackHash: pack.Hash(), Questions: qs}}
	if i > 1 {
		t.rec.Repeat = i
	}
	for _, b := range r.Briefings {
		t.Names = append(t.Names, b.Name)
	}
	return t
}

// AnswerInput is the answerer's request for one briefing's text.
func (t *JudgeTask) AnswerInput(briefing string) cascade.Input {
	return t.repeated(t.pack.AnswerPrompt(briefing, t.Questions))
}

// repeated marks in as the task's repeat, from the second on: the first
// keeps the plain request's cache key.
func (t *JudgeTask) repeated(in cascade.Input) cascade.Input {
	if t.repeat > 1 {
		in.Repeat = t.repeat
	}
	return in
}

// run is the name of the task's record: the options' Run for the first
// repeat, Run@I for repeat I.
func (t *JudgeTask) run() string {
	if t.opt.Run == "" {
		return ""
	}
	return replay.RepeatRun(t.opt.Run, t.repeat)
}

// Order is the order the briefings' answer sets are shown to the judge in.
func (t *JudgeTask) Order() []string { return shuffleOrder(t.Names, t.Questions) }

// GradeInput is the judge's request for the answers (ParseAnswers of
// each briefing's answer, by name), the sets in Order.
//
// Its Check refuses a grade answer that leaves any answer ungraded: such
// an answer fails the call (the bundle's judging is an error, its scores
// n/a, never 0) and is never cached.
func (t *JudgeTask) GradeInput(answers map[string][]string) cascade.Input {
	t.rec.Order = t.Order()
	sets := t.sets(answers)
	in := t.repeated(t.pack.GradePrompt(t.Questions, sets))
	in.Check = func(text string) error {
		grades := ParseGrades(text, len(sets), len(t.Questions))
		missing := 0
		for _, set := range grades {
			for _, g := range set {
				if g == nil {
					missing++
				}
			}
		}
		if missing > 0 {
			return fmt.Errorf("the judge's answer leaves %d of %s without a grade it could read (one JSON line per answer with the six grades); not used, not cached", missing, plural(len(sets)*len(t.Questions), "answer"))
		}
		return nil
	}
	return in
}

func (t *JudgeTask) sets(answers map[string][]string) [][]string {
	sets := make([][]string, len(t.rec.Order))
	for i, name := range t.rec.Order {
		sets[i] = answers[name]
		if sets[i] == nil {
			sets[i] = make([]string, len(t.Questions))
		}
	}
	return sets
}

// Fail records that the judging of the bundle stopped at err, after
// calls: r.Judge carries them and the error, no record is written.
func (t *JudgeTask) Fail(calls []JudgeCall, err error) error {
	t.rec.Calls = append(t.rec.Calls, calls...)
	t.R.Judge = t.rec.summary()
	t.R.Judge.Error = err.Error()
	return err
}

// Finish grades the answers with the judge's answer gradeText, writes the
// record when the options name a run, and sets the scores of r's
// briefings and r.Judge. calls are every call made: the answers', then
// the grade's.
func (t *JudgeTask) Finish(calls []JudgeCall, answers map[string][]string, gradeText string) error {
	if err := t.grade(calls, answers, gradeText); err != nil {
		return t.Fail(nil, fmt.Errorf("judge: %w", err))
	}
	t.apply(t.rec)
	return nil
}

// grade completes the task's record from the answers and the judge's
// answer gradeText, and writes it when the options name a run. calls are
// every call made: the answers', then the grade's. Its error is the
// record's writing.
func (t *JudgeTask) grade(calls []JudgeCall, answers map[string][]string, gradeText string) error {
	rec, qs, names := t.rec, t.Questions, t.Names
	r := t.R
	rec.Calls = append(rec.Calls, calls...)
	rec.Order = t.Order()
	sets := t.sets(answers)
	grades := ParseGrades(gradeText, len(sets), len(qs))
	for s, name := range rec.Order {
		jb := JudgedBriefing{Name: name, Dimensions: map[string]float64{}, Kinds: map[Kind]float64{}}
		kindSum, kindN := map[Kind]float64{}, map[Kind]int{}
		var dims Grades
		for i, q := range qs {
			a := JudgedAnswer{Q: q.N, Answer: sets[s][i], Grades: grades[s][i]}
			if a.Grades == nil {
				jb.Ungraded++
			} else {
				a.Score = a.Grades.Mean()
				for d, p := range dims.ptrs() {
					*p += *a.Grades.ptrs()[d]
				}
			}
			jb.Score += a.Score
			kindSum[q.Kind] += a.Score
			kindN[q.Kind]++
			jb.Answers = append(jb.Answers, a)
		}
		n := float64(len(qs))
		jb.Score /= n
		for d, p := range dims.ptrs() {
			jb.Dimensions[Dimensions[d]] = *p / n
		}
		for k, v := range kindSum {
			jb.Kinds[k] = v / float64(kindN[k])
		}
		rec.Briefings = append(rec.Briefings, jb)
	}
	sort.Slice(rec.Briefings, func(i, j int) bool {
		return indexOf(names, rec.Briefings[i].Name) < indexOf(names, rec.Briefings[j].Name)
	})
	for _, c := range rec.Calls {
		rec.CostUSD = cascade.RoundUSD(rec.CostUSD + c.CostUSD)
		rec.SavedUSD = cascade.RoundUSD(rec.SavedUSD + c.SavedUSD)
	}
	if run := t.run(); run != "" {
		rec.File = bundle.JudgePath(r.Bundle, run)
		if err := writeRecord(r.Bundle, run, rec); err != nil {
			return err
		}
	}
	return nil
}

// apply sets r's judged scores from rec.
func (t *JudgeTask) apply(rec *JudgeRecord) {
	r := t.R
	for i := range rec.Briefings {
		jb := rec.Briefings[i]
		r.Briefing(jb.Name).Judged = &jb
	}
	r.Judge = rec.summary()
	if unanswered := ungraded(rec); unanswered > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("judge: %d of %s got no grade (scored 0); see %s", unanswered, plural(len(t.Questions)*len(t.Names), "answer"), rec.File))
	}
}

// Judge asks the questions of r's probes of an answerer that sees only one
// briefing, for each briefing of r (texts by briefing name), then has the
// judge grade all the answer sets in one call, in shuffled order. It sets
// each BriefingScore's Judged and r.Judge, and writes the record when
// opt.Run is set. A bundle without probes or briefings is left alone.
//
// With opt.Repeats K > 1 it does so K times, one repeat after the other,
// each a request of its own (JudgeOptions.Repeats): the scores are the
// first repeat's, each Judged lists every repeat's score (Repeats), and
// r.Judge carries every repeat's calls. A repeat that fails leaves the
// bundle unjudged, with the error; the records of the repeats before it
// are written, and their answers cached.
func Judge(ctx context.Context, r *BundleResult, texts map[string]string, opt JudgeOptions) error {
	k := max(opt.Repeats, 1)
	tasks := make([]*JudgeTask, 0, k)
	for i := 1; i <= k; i++ {
		t := newJudgeTask(r, opt, i)
		if t == nil {
			return nil
		}
		tasks = append(tasks, t)
		if err := t.ask(ctx, texts); err != nil {
			if k > 1 {
				err = fmt.Errorf("judge: repeat %d of %d: %w", i, k, err)
			} else {
				err = fmt.Errorf("judge: %w", err)
			}
			r.Judge = repeatsSummary(tasks, k)
			r.Judge.Error = err.Error()
			return err
		}
	}
	tasks[0].apply(tasks[0].rec)
	if k > 1 {
		r.Judge = repeatsSummary(tasks, k)
		setJudgedRepeats(r, tasks)
	}
	return nil
}

// ask is one judging of the task's bundle: the answers, from every
// briefing at once, then the grade; the task's record holds the calls
// made, and is complete (and written) when ask returns no error.
func (t *JudgeTask) ask(ctx context.Context, texts map[string]string) error {
	names := t.Names
	answers := map[string][]string{}
	calls := make([]JudgeCall, len(names))
	errs := make([]error, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, c, err := t.call(ctx, "answer "+name, t.AnswerInput(texts[name]))
			calls[i], errs[i] = c, err
			if err == nil {
				mu.Lock()
				answers[name] = ParseAnswers(text, len(t.Questions))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.rec.Calls = append(t.rec.Calls, calls...)
			return fmt.Errorf("answering from %s: %w", names[i], err)
		}
	}
	text, c, err := t.call(ctx, "grade", t.GradeInput(answers))
	calls = append(calls, c)
	if err != nil {
		t.rec.Calls = append(t.rec.Calls, calls...)
		return fmt.Errorf("grading: %w", err)
	}
	return t.grade(calls, answers, text)
}

// call is JudgeOptions.call, the call marked with the task's repeat.
func (t *JudgeTask) call(ctx context.Context, purpose string, in cascade.Input) (string, JudgeCall, error) {
	text, c, err := t.opt.call(ctx, purpose, in)
	if t.repeat > 1 {
		c.Repeat = t.repeat
	}
	return text, c, err
}

// ErrNoJudgeRecord: a bundle has no judge record for the run.
var ErrNoJudgeRecord = errors.New("no judge record")

// ReadJudged sets r's judged scores from its record,
// <bundle>/judge/<opt.Run>.json, as Judge sets them: what compact eval
// --judge --batch reports once its batches are collected. The record must
// be of the same judge, judge pack, questions and briefings; a bundle
// with nothing to judge is left alone.
func ReadJudged(r *BundleResult, opt JudgeOptions) error {
	t := NewJudgeTask(r, opt)
	if t == nil {
		return nil
	}
	file := bundle.JudgePath(r.Bundle, opt.Run)
	fail := func(err error) error {
		r.Judge = t.rec.summary()
		r.Judge.Error = err.Error()
		return err
	}
	data, err := fsutil.ReadFileLimit(file, 1<<30)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("judge: %w: %s is missing", ErrNoJudgeRecord, file))
		}
		return fail(fmt.Errorf("judge: %w", err))
	}
	var rec JudgeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return fail(fmt.Errorf("judge: %s: %v", file, err))
	}
	var names []string
	for _, b := range rec.Briefings {
		names = append(names, b.Name)
	}
	switch {
	case rec.Judge != t.rec.Judge || rec.PackHash != t.rec.PackHash:
		return fail(fmt.Errorf("judge: %s is of judge %s with pack %s, not %s with %s", file, rec.Judge, rec.PackHash, t.rec.Judge, t.rec.PackHash))
	case !reflect.DeepEqual(rec.Questions, t.Questions) || !slices.Equal(names, t.Names):
		return fail(fmt.Errorf("judge: %s asked other questions or of other briefings than the bundle has now; judge it again", file))
	}
	rec.File = file
	t.apply(&rec)
	return nil
}

// ReadJudgedAll runs ReadJudged over results; it returns the bundles
// without a usable record (their offline scores stand).
func ReadJudgedAll(results []*BundleResult, opt JudgeOptions) []BundleError {
	var bad []BundleError
	for _, r := range results {
		if err := ReadJudged(r, opt); err != nil {
			bad = append(bad, BundleError{Bundle: r.Bundle, Error: err.Error()})
		}
	}
	return bad
}

// TuneJudgeCascade sets what the judge asks of the cascade it calls: an
// answer as short as "Q1: not in the briefing" is an answer, and the most
// likely one is wanted (temperature 0, where the model takes one). The
// requests, and so their response cache keys, depend on it.
func TuneJudgeCascade(c *cascade.Cascade) {
	c.Settings.MinOutputChars = 1
	c.Settings.Temperature = 0
}

func ungraded(rec *JudgeRecord) int {
	n := 0
	for _, b := range rec.Briefings {
		n += b.Ungraded
	}
	return n
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return len(xs)
}

func (rec *JudgeRecord) summary() *JudgeSummary {
	return &JudgeSummary{Judge: rec.Judge, PackHash: rec.PackHash, Questions: rec.Questions, Order: rec.Order, Calls: rec.Calls, CostUSD: rec.CostUSD, SavedUSD: rec.SavedUSD, File: rec.File}
}

// writeRecord writes rec as <dir>/judge/<run>.json.
func writeRecord(dir, run string, rec *JudgeRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return bundle.WriteJudgeRecord(dir, run, append(data, '\n'))
}

// JudgeAll runs Judge over results on workers goroutines, reading each
// briefing's text from its file. It returns the bundles that could not be
// judged (their offline scores stand).
func JudgeAll(ctx context.Context, results []*BundleResult, opt JudgeOptions, workers int, progress func(done, total int)) []BundleError {
	errs := make([]error, len(results))
	workpool.Each(len(results), max(1, workers), func(i int) {
		r := results[i]
		texts := map[string]string{}
		for _, b := range r.Briefings {
			data, err := fsutil.ReadFileLimit(b.File, fsutil.MaxJSStringBytes)
			if err != nil {
				errs[i] = err
				return
			}
			texts[b.Name] = string(data)
		}
		if ctx.Err() == nil {
			errs[i] = Judge(ctx, r, texts, opt)
		}
	}, progress, func() bool { return ctx.Err() != nil })
	var bad []BundleError
	for i, err := range errs {
		if err != nil {
			bad = append(bad, BundleError{Bundle: results[i].Bundle, Error: err.Error()})
		}
	}
	if ctx.Err() != nil {
		bad = append(bad, BundleError{Bundle: "", Error: errors.New("judge: interrupted; run again: what was answered is cached").Error()})
	}
	return bad
}
