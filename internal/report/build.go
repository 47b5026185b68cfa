package report

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/diff"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/prompt"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/workpool"
)

// Options steer Build.
type Options struct {
	// Runs are the replay runs shown beside the app's briefing (every run
	// with an answer when empty).
	Runs []string
	// Baseline is the briefing the others are compared with: eval.Actual
	// (the default) or a run.
	Baseline string
	// Judge names the judge records read, <bundle>/judge/<Judge>.json; when
	// empty, each bundle's first record by name.
	Judge string
	// Target is the size target in UTF-16 units (prompt.DefaultTargetChars when
	// 0); Profile the rules of bundles whose metadata does not say.
	Target  int
	Profile string
	// Jobs is how many bundles are read at once (GOMAXPROCS when 0).
	Jobs int
	// Progress, when set, is called after each bundle.
	Progress func(done, total int)
	// Stop, when set and true, stops handing out bundles (an interrupt).
	Stop func() bool
}

// Report is what the page shows.
type Report struct {
	// Root is the directory every bundle lies under (names are relative
	// to it).
	Root string
	// Names are the briefings compared: eval.Actual first when a bundle
	// has one, then the runs by name.
	Names    []string
	Baseline string
	Target   int
	// Bundles are worst first (Less).
	Bundles []*Bundle
	// Errors are the bundles that could not be read at all.
	Errors []BundleError
	// Eval sums the probe scores (nil when no bundle had probes).
	Eval *eval.Report
	// Judges are the judge records read, by name.
	Judges []string
	// Sims are the simulate results shown.
	Sims []*Simulation
}

// BundleError is a bundle that could not be read.
type BundleError struct {
	Bundle string `json:"bundle"`
	Error  string `json:"error"`
}

// Bundle is one bundle's figures, and its section packed for the page.
type Bundle struct {
	Dir  string
	Name string
	// Chain is the chat directory; Compression the bundle's place in it.
	Chain       string
	Compression int
	// ChatID and Boundary (boundaryMessageIndex, -1 when unknown) come
	// from metadata.json: where the app compacted the chat.
	ChatID   string
	Boundary int
	Probes   int
	// Sides are the briefings by name.
	Sides map[string]*Side
	// Drop is the lowest grounded score of a briefing minus the baseline's
	// (0 when none is lower).
	Drop float64
	// Worse lists, per run, the diff measures on which the run is worse
	// than the app's briefing ("run: lost-paths").
	Worse    []string
	Warnings []string
	// Judge is the judge record read, "" for none.
	Judge string
	// detail is the bundle's section, rendered and gzipped.
	detail []byte
}

// Side is one briefing of a bundle.
type Side struct {
	Name  string
	Chars int
	// Score is the grounded headline (nil when the bundle is not
	// measurable by it).
	Score *float64
	Kinds map[eval.Kind]eval.Tally
	Lost  int
	// Judged is the judge's mean grade, 0 to 5 (nil when not judged).
	Judged *float64
	// Measure is diff's measure of the briefing (nil when it could not
	// be compared); Similarity and Worse are a run's against the app's.
	Measure    *Measure
	Similarity *diff.Similarity
	Worse      []string
	Record     *replay.Record
}

// Measure is what the overview sums of diff's measure of a briefing (the
// items themselves stay in the bundle's section).
type Measure struct {
	// Items and Kept count the must-keep items; Measured is false without
	// a compact history.
	Measured      bool
	Items, Kept   int
	LostPaths     int
	LostDecisions int
	Violations    int
	Leaks         int
}

func measureOf(s *diff.Side) *Measure {
	m := &Measure{Measured: s.KeptRatio != nil, Items: len(s.Kept) + len(s.Lost), Kept: len(s.Kept),
		LostPaths: s.LostPaths, Violations: s.Violations, Leaks: s.LeakCount}
	for _, it := range s.Lost {
		if it.Kind == mdtext.KindDecision {
			m.LostDecisions++
		}
	}
	return m
}

// Build reads and measures the bundles of dirs.
func Build(dirs []string, opts Options) *Report {
	if opts.Target <= 0 {
		opts.Target = prompt.DefaultTargetChars
	}
	r := &Report{Root: commonRoot(dirs), Baseline: opts.Baseline, Target: opts.Target}
	type out struct {
		b   *Bundle
		res *eval.BundleResult
		err error
	}
	outs := make([]out, len(dirs))
	workpool.Each(len(dirs), opts.Jobs, func(i int) {
		b, res, err := readBundle(dirs[i], opts)
		outs[i] = out{b, res, err}
	}, opts.Progress, opts.Stop)

	names := map[string]bool{}
	judges := map[string]bool{}
	var results []*eval.BundleResult
	for i, o := range outs {
		if o.b == nil && o.err == nil {
			continue // not read: stopped
		}
		if o.err != nil {
			r.Errors = append(r.Errors, BundleError{Bundle: dirs[i], Error: o.err.Error()})
			continue
		}
		o.b.Name = relTo(r.Root, o.b.Dir)
		r.Bundles = append(r.Bundles, o.b)
		for n := range o.b.Sides {
			names[n] = true
		}
		if o.b.Judge != "" {
			judges[o.b.Judge] = true
		}
		if o.res != nil {
			results = append(results, o.res)
		}
	}
	if names[eval.Actual] {
		r.Names = append(r.Names, eval.Actual)
	}
	var runs []string
	for n := range names {
		if n != eval.Actual {
			runs = append(runs, n)
		}
	}
	sort.Strings(runs)
	r.Names = append(r.Names, runs...)
	if r.Baseline == "" && len(r.Names) > 0 {
		r.Baseline = r.Names[0]
	}
	for j := range judges {
		r.Judges = append(r.Judges, j)
	}
	sort.Strings(r.Judges)
	if len(results) > 0 {
		r.Eval = eval.NewReport(results, nil, eval.ReportOptions{Baseline: r.Baseline})
	}
	for _, b := range r.Bundles {
		b.Drop = 0
		if base := b.Sides[r.Baseline]; base != nil && base.Score != nil {
			for _, s := range b.Sides {
				if s.Score != nil && s.Name != r.Baseline {
					b.Drop = math.Min(b.Drop, *s.Score-*base.Score)
				}
			}
		}
	}
	sort.SliceStable(r.Bundles, func(i, j int) bool { return less(r.Bundles[i], r.Bundles[j]) })
	return r
}

// less orders bundles worst first: the largest drop of a briefing's probe
// score below the baseline's, then the most diff measures on which a run
// is worse than the app's briefing, then the lowest probe score of any
// briefing, then by name.
func less(a, b *Bundle) bool {
	if a.Drop != b.Drop {
		return a.Drop < b.Drop
	}
	if len(a.Worse) != len(b.Worse) {
		return len(a.Worse) > len(b.Worse)
	}
	if la, lb := lowest(a), lowest(b); la != lb {
		return la < lb
	}
	return a.Name < b.Name
}

func lowest(b *Bundle) float64 {
	l := 1.0
	for _, s := range b.Sides {
		if s.Score != nil {
			l = math.Min(l, *s.Score)
		}
	}
	return l
}

// readBundle measures one bundle and renders its section.
func readBundle(dir string, opts Options) (*Bundle, *eval.BundleResult, error) {
	b := &Bundle{Dir: dir, Chain: bundle.ChainOf(dir), Boundary: -1, Sides: map[string]*Side{}}
	b.Compression = bundle.Position(dir, nil)
	if md, err := bundle.ReadMetadata(dir); err == nil {
		b.ChatID = md.ChatID
		b.Compression = bundle.Position(dir, &md)
		if md.BoundaryMessageIndex != nil {
			b.Boundary = *md.BoundaryMessageIndex
		}
	}
	aText, err := bundle.ReadText(filepath.Join(dir, bundle.FileActual))
	if err != nil {
		return nil, nil, fileErr(err)
	}
	replays, err := bundle.Replays(dir)
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(replays, func(i, j int) bool { return replays[i].Run < replays[j].Run })
	texts := map[string]string{eval.Actual: aText}
	d := &detail{bundle: b, texts: texts, comparisons: map[string]*diff.Comparison{}, profile: opts.Profile}
	b.Sides[eval.Actual] = &Side{Name: eval.Actual, Chars: history.Len16(aText)}
	for _, rp := range replays {
		if len(opts.Runs) > 0 && !slices.Contains(opts.Runs, rp.Run) {
			continue
		}
		if !rp.Answered {
			if len(opts.Runs) > 0 {
				b.Warnings = append(b.Warnings, "run "+rp.Run+" has no answer: "+rp.State().Error)
			}
			continue
		}
		in, err := diff.LoadBundle(dir, diff.Options{Run: rp.Run, Target: opts.Target, Profile: opts.Profile})
		if err != nil {
			b.Warnings = append(b.Warnings, "run "+rp.Run+": "+err.Error())
			continue
		}
		c := diff.Compare(in)
		if len(d.comparisons) == 0 {
			a := b.Sides[eval.Actual]
			a.Chars, a.Measure = c.A.Chars, measureOf(&c.A)
			d.profile = c.Profile
			b.Warnings = append(b.Warnings, in.Warnings...)
			if in.HasHistory {
				d.history, d.hasHistory = in.History, true
			}
		}
		d.comparisons[rp.Run] = c
		texts[rp.Run] = in.B
		sim := c.Similarity
		s := &Side{Name: rp.Run, Chars: c.B.Chars, Measure: measureOf(&c.B), Similarity: &sim, Worse: c.Worse}
		if rec, err := replay.ReadRecord(dir, rp.Run); err == nil {
			s.Record = rec
		}
		b.Sides[rp.Run] = s
		for _, m := range c.Worse {
			b.Worse = append(b.Worse, rp.Run+": "+m)
		}
	}
	if len(d.comparisons) == 0 {
		if h, err := bundle.ReadText(filepath.Join(dir, bundle.FileCompact)); err == nil {
			d.history, d.hasHistory = h, true
		} else if !errors.Is(err, fs.ErrNotExist) {
			b.Warnings = append(b.Warnings, fileErr(err).Error())
		}
	}

	var res *eval.BundleResult
	if d.hasHistory {
		// The same scores compact eval gives: the grounded headline and
		// the coverage probes, for the briefings this page shows.
		full, err := eval.EvaluateBundle(dir, eval.EvalOptions{Target: opts.Target})
		if err != nil {
			b.Warnings = append(b.Warnings, err.Error())
			full = &eval.BundleResult{Bundle: dir, Probes: eval.Mine(d.history, eval.Options{})}
		}
		res = full
		b.Probes = len(res.Probes)
		var keep []eval.BriefingScore
		for _, sc := range res.Briefings {
			if b.Sides[sc.Name] != nil {
				keep = append(keep, sc)
			}
		}
		res.Briefings = keep
		readJudge(b, res, opts.Judge)
		for i := range res.Briefings {
			sc := &res.Briefings[i]
			s := b.Sides[sc.Name]
			s.Kinds, s.Lost = sc.Kinds, len(sc.Lost)
			if v, ok := sc.Headline(); ok {
				s.Score = &v
			}
			if sc.Judged != nil {
				v := sc.Judged.Score
				s.Judged = &v
			}
		}
		if len(res.Probes) == 0 && len(res.Grounded) == 0 {
			res = nil
		}
	} else {
		b.Warnings = append(b.Warnings, "no "+bundle.FileCompact+": no probes and no must-keep items")
	}
	d.eval = res
	packed, err := packDetail(d)
	if err != nil {
		return nil, nil, err
	}
	b.detail = packed
	return b, slim(res), nil
}

// slim keeps of res what the report's sums need (the kinds of its
// probes, each briefing's scores), so that the texts of thousands of
// bundles are not held until the page is written.
func slim(res *eval.BundleResult) *eval.BundleResult {
	if res == nil {
		return nil
	}
	out := &eval.BundleResult{Bundle: res.Bundle, Probes: make([]eval.Probe, len(res.Probes)), Grounded: make([]eval.Probe, len(res.Grounded)),
		NotMeasurable: res.NotMeasurable, ReReads: res.ReReads, Judge: res.Judge}
	for i, p := range res.Probes {
		out.Probes[i] = eval.Probe{Kind: p.Kind}
	}
	for i, p := range res.Grounded {
		out.Grounded[i] = eval.Probe{Kind: p.Kind}
	}
	for _, b := range res.Briefings {
		b.Answers, b.File, b.Replay = nil, "", nil
		if b.Judged != nil {
			j := *b.Judged
			j.Answers = nil
			b.Judged = &j
		}
		out.Briefings = append(out.Briefings, b)
	}
	if out.Judge != nil {
		j := *out.Judge
		j.Questions = nil
		out.Judge = &j
	}
	return out
}

// sideOrder is actual first, then the runs by name.
func sideOrder(sides map[string]*Side) []string {
	var out []string
	if sides[eval.Actual] != nil {
		out = append(out, eval.Actual)
	}
	var runs []string
	for n := range sides {
		if n != eval.Actual {
			runs = append(runs, n)
		}
	}
	sort.Strings(runs)
	return append(out, runs...)
}

// readJudge attaches the judge record name (or the bundle's first by
// name) to the briefings of res.
func readJudge(b *Bundle, res *eval.BundleResult, name string) {
	if name == "" {
		runs := bundle.JudgeRecords(b.Dir)
		if len(runs) == 0 {
			return
		}
		name = runs[0]
	}
	file := bundle.JudgePath(b.Dir, name)
	rec, err := eval.ReadJudgeRecord(b.Dir, name)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.As(err, &syntax) || errors.As(err, &typ):
		b.Warnings = append(b.Warnings, "judge record "+err.Error()) // names the file
		return
	default:
		if !errors.Is(err, fs.ErrNotExist) {
			b.Warnings = append(b.Warnings, "judge record: "+err.Error())
		}
		return
	}
	b.Judge = name
	for i := range rec.Briefings {
		jb := rec.Briefings[i]
		if sc := res.Briefing(jb.Name); sc != nil {
			sc.Judged = &jb
		}
	}
	res.Judge = &eval.JudgeSummary{Judge: rec.Judge, PackHash: rec.PackHash, Questions: rec.Questions, Order: rec.Order,
		Calls: rec.Calls, CostUSD: rec.CostUSD, SavedUSD: rec.SavedUSD, File: file}
}

func fileErr(err error) error {
	var fe *bundle.FileError
	if errors.As(err, &fe) && errors.Is(fe.Err, fs.ErrNotExist) {
		return errors.New(fe.Path + " is missing")
	}
	return err
}

// commonRoot is the deepest directory holding the parent of every
// bundle's chain, so that names keep the chain and the bundle.
func commonRoot(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
	up := func(p string) string { return filepath.Dir(filepath.Dir(filepath.Clean(p))) }
	root := up(dirs[0])
	for _, d := range dirs[1:] {
		d = filepath.Clean(d)
		for root != "." && root != string(filepath.Separator) && !strings.HasPrefix(d, root+string(filepath.Separator)) {
			root = filepath.Dir(root)
		}
	}
	if root == "." {
		return ""
	}
	return root
}

// relTo names path relative to root.
func relTo(root, path string) string {
	if root == "" {
		return filepath.ToSlash(path)
	}
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(path)
}
