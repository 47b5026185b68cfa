package report

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/eval"
)

//go:embed assets/page.html assets/style.css assets/script.js
var assets embed.FS

var (
	pageTemplates = template.Must(template.New("report").ParseFS(assets, "assets/page.html"))
	styleCSS      = mustAsset("assets/style.css")
	scriptJS      = mustAsset("assets/script.js")
	// csp lets the page run its own script and styles and load nothing.
	csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sha256sum(scriptJS)) + "'"
)

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func sha256sum(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// PageOptions steer WriteHTML.
type PageOptions struct {
	// Title heads the page ("compact report" when empty).
	Title   string
	Version string
	// MaxBytes bounds the page: the sections of the best bundles are left
	// out once the page would grow past it (0: no bound).
	MaxBytes int64
}

// Stats say what WriteHTML wrote.
type Stats struct {
	Bytes       int64 `json:"bytes"`
	Bundles     int   `json:"bundles"`
	Sections    int   `json:"sections"`
	LeftOut     int   `json:"leftOut"`
	Chains      int   `json:"chains"`
	Simulations int   `json:"simulations"`
}

// The page's view.
type (
	pageView struct {
		Title, Version, CSP string
		CSS                 template.CSS
		Root                string
		Facts               []fact
		Notes               []string
		Cols                []colView
		Baseline            string
		Measures            []measureLine
		Pairs               []pairLine
		ScoreChart          template.HTML
		JudgedChart         template.HTML
		JudgeNames          string
		SizeChart           template.HTML
		DistChart           template.HTML
		Bundles             []bundleRow
		LeftOut             int
		Errors              []BundleError
		Chains              []chainView
		MoreChains          string
		MoreChainsText      string
		SingleChains        int
		Sim                 *simView
	}
	colView struct {
		Name, Class string
		Baseline    bool
	}
	measureLine struct {
		Label, Help, Class string
		Cells              []textCell
	}
	textCell struct{ Text, Class, Title string }
	pairLine struct {
		Name  string
		Cells []textCell
	}
	bundleRow struct {
		ID, Chunk, Name, Dir string
		Rank                 int
		Cells                []scoreCell
		Flags                []string
	}
	scoreCell struct{ Name, Class, Score, Chars, Title string }
	chainView struct {
		Name, Text  string
		Size, Score template.HTML
	}
)

// eagerChains is how many chains the page draws at once; the others
// unpack when opened.
const eagerChains = 12

// chunk is a packed section: its id and gzipped bytes.
type chunk struct {
	id   string
	data []byte
}

// WriteHTML writes the page.
func (r *Report) WriteHTML(w io.Writer, opt PageOptions) (Stats, error) {
	if opt.Title == "" {
		opt.Title = "compact report"
	}
	v := &pageView{Title: opt.Title, Version: opt.Version, CSP: csp, CSS: template.CSS(styleCSS), Root: r.Root, Baseline: r.Baseline, Errors: r.Errors}
	st := Stats{Bundles: len(r.Bundles), Simulations: len(r.Sims)}
	for i, n := range r.Names {
		v.Cols = append(v.Cols, colView{Name: n, Class: seriesClass(i), Baseline: n == r.Baseline && len(r.Names) > 1})
	}
	r.overview(v)
	var chunks []chunk
	chains, more, nChains := r.chainViews()
	st.Chains = nChains
	v.Chains = chains
	v.SingleChains = nChains - len(chains) - len(more)
	if len(more) > 0 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if err := pageTemplates.ExecuteTemplate(zw, "chains", more); err != nil {
			return st, err
		}
		if err := zw.Close(); err != nil {
			return st, err
		}
		v.MoreChains = "zc"
		v.MoreChainsText = fmt.Sprintf("%d more chains", len(more))
		chunks = append(chunks, chunk{"zc", buf.Bytes()})
	}
	app := map[string][]int{}
	for _, b := range r.Bundles {
		if b.ChatID != "" && b.Boundary >= 0 {
			app[b.ChatID] = append(app[b.ChatID], b.Boundary)
		}
	}
	v.Sim = simulationView(r.Sims, app)

	// The bundles' sections, worst first, while they fit.
	budget := int64(-1)
	if opt.MaxBytes > 0 {
		budget = opt.MaxBytes - 400_000 - int64(len(r.Bundles))*700 // the rest of the page, roughly
		for _, c := range chunks {
			budget -= int64(base64.StdEncoding.EncodedLen(len(c.data)))
		}
	}
	for i, b := range r.Bundles {
		row := r.bundleRow(i, b)
		size := int64(base64.StdEncoding.EncodedLen(len(b.detail))) + 80
		if budget < 0 && opt.MaxBytes <= 0 || budget >= size {
			if opt.MaxBytes > 0 {
				budget -= size
			}
			row.Chunk = "z" + strconv.Itoa(i+1)
			chunks = append(chunks, chunk{row.Chunk, b.detail})
			st.Sections++
		} else {
			budget = 0 // the rest are better: leave them all out
			st.LeftOut++
		}
		v.Bundles = append(v.Bundles, row)
	}
	v.LeftOut = st.LeftOut
	v.Facts = r.facts(st)
	if st.LeftOut > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("%d of %d %s no section in this page, to keep it under %s (--max-size); %s the last in the list.",
			st.LeftOut, len(r.Bundles), plural(len(r.Bundles), "bundle has", "bundles have"), bytesText(opt.MaxBytes), plural(st.LeftOut, "it is", "they are")))
	}
	if len(r.Judges) > 1 {
		v.Notes = append(v.Notes, "Judge records of several names were read ("+strings.Join(r.Judges, ", ")+"); pick one with --judge NAME.")
	}

	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 256<<10)
	if err := pageTemplates.ExecuteTemplate(bw, "page", v); err != nil {
		return st, err
	}
	enc := make([]byte, 0, 64<<10)
	for _, c := range chunks {
		bw.WriteString(`<script type="application/octet-stream" id="` + c.id + `">`)
		enc = base64.StdEncoding.AppendEncode(enc[:0], c.data)
		bw.Write(enc)
		bw.WriteString("</script>\n")
	}
	bw.WriteString("<script>" + scriptJS + "</script>\n</body>\n</html>\n")
	if err := bw.Flush(); err != nil {
		return st, err
	}
	st.Bytes = cw.n
	return st, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (r *Report) facts(st Stats) []fact {
	var out []fact
	add := func(n int, label string) {
		out = append(out, fact{Label: label, Value: thousands(int64(n))})
	}
	if len(r.Bundles) > 0 || len(r.Errors) > 0 {
		add(len(r.Bundles), plural(len(r.Bundles), "bundle", "bundles"))
		runs := len(r.Names)
		if len(r.Names) > 0 && r.Names[0] == eval.Actual {
			runs--
		}
		add(runs, plural(runs, "replay run", "replay runs"))
		if st.Chains > 0 {
			add(st.Chains, plural(st.Chains, "chain", "chains"))
		}
		probes := 0
		for _, b := range r.Bundles {
			probes += b.Probes
		}
		add(probes, "probes")
	}
	if len(r.Errors) > 0 {
		add(len(r.Errors), "not read")
	}
	if len(r.Sims) > 0 {
		add(len(r.Sims), plural(len(r.Sims), "simulation", "simulations"))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// overview fills the table of briefings side by side and the charts.
func (r *Report) overview(v *pageView) {
	if len(r.Names) == 0 {
		return
	}
	type agg struct {
		bundles, overTarget, items, kept, lostPaths, lostDecisions, rules, leaks, measured int
		chars                                                                              []float64
		models, packs                                                                      map[string]int
		in, out, latency                                                                   int64
		cost                                                                               float64
		records                                                                            int
		scores                                                                             []float64
		judged                                                                             []float64
	}
	aggs := map[string]*agg{}
	for _, n := range r.Names {
		aggs[n] = &agg{models: map[string]int{}, packs: map[string]int{}}
	}
	for _, b := range r.Bundles {
		for n, s := range b.Sides {
			a := aggs[n]
			a.bundles++
			a.chars = append(a.chars, float64(s.Chars))
			if s.Chars > r.Target {
				a.overTarget++
			}
			if s.Score != nil {
				a.scores = append(a.scores, *s.Score)
			}
			if s.Judged != nil {
				a.judged = append(a.judged, *s.Judged)
			}
			if m := s.Measure; m != nil {
				a.measured++
				if m.Measured {
					a.items += m.Items
					a.kept += m.Kept
				}
				a.lostPaths += m.LostPaths
				a.lostDecisions += m.LostDecisions
				a.rules += m.Violations
				a.leaks += m.Leaks
			}
			if rec := s.Record; rec != nil {
				a.records++
				if rec.Model != nil {
					a.models[*rec.Model]++
				}
				pack := rec.Pack
				switch {
				case pack == "":
					pack = "the bundle's own prompt"
				case strings.ContainsAny(pack, `/\`):
					pack = filepath.Base(pack) // a directory: its name
				}
				a.packs[pack]++
				a.in += rec.Usage.InputTokens
				a.out += rec.Usage.OutputTokens
				a.cost += rec.CostUSD
				a.latency += rec.LatencyMs
			}
		}
	}
	sides := map[string]*eval.SideSummary{}
	if r.Eval != nil {
		for i := range r.Eval.Sides {
			sides[r.Eval.Sides[i].Name] = &r.Eval.Sides[i]
		}
	}
	row := func(label, help, class string, cell func(n string, a *agg) textCell) {
		ml := measureLine{Label: label, Help: help, Class: class}
		for _, n := range r.Names {
			ml.Cells = append(ml.Cells, cell(n, aggs[n]))
		}
		v.Measures = append(v.Measures, ml)
	}
	text := func(s string) textCell { return textCell{Text: s} }
	counts := func(m map[string]int) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if m[keys[i]] != m[keys[j]] {
				return m[keys[i]] > m[keys[j]]
			}
			return keys[i] < keys[j]
		})
		var parts []string
		for _, k := range keys {
			if len(keys) == 1 {
				parts = append(parts, k)
			} else {
				parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
			}
		}
		return strings.Join(parts, ", ")
	}
	isActual := func(n string) bool { return n == eval.Actual }
	row("bundles", "bundles that have this briefing", "", func(n string, a *agg) textCell { return text(thousands(int64(a.bundles))) })
	row("model", "the model that answered (replay.json)", "", func(n string, a *agg) textCell {
		if isActual(n) {
			return text("the app")
		}
		if len(a.models) == 0 {
			return text("–")
		}
		return text(counts(a.models))
	})
	row("prompt pack", "the prompt pack the request was built with (replay --pack)", "", func(n string, a *agg) textCell {
		if isActual(n) || len(a.packs) == 0 {
			return text("–")
		}
		return text(counts(a.packs))
	})
	row("tokens in / out", "the replays' input and output tokens, in all", "", func(n string, a *agg) textCell {
		if isActual(n) || a.records == 0 {
			return text("–")
		}
		return text(thousands(a.in) + " / " + thousands(a.out))
	})
	row("cost", "the replays' cost in all, from the model table's prices", "", func(n string, a *agg) textCell {
		if isActual(n) || a.records == 0 {
			return text("–")
		}
		return text(usd(a.cost))
	})
	row("size, median", "characters (UTF-16 units)", "group", func(n string, a *agg) textCell { return text(thousands(int64(median(a.chars)))) })
	row("size, 90th percentile", "", "sub", func(n string, a *agg) textCell {
		return text(thousands(int64(quantile(sortedCopy(a.chars), 0.9))))
	})
	row(fmt.Sprintf("over the target (%s)", thousands(int64(r.Target))), "briefings larger than compression.target_chars", "sub", func(n string, a *agg) textCell {
		c := text(strconv.Itoa(a.overTarget))
		if a.overTarget > 0 {
			c.Class = "worse"
		}
		return c
	})
	row("must-keep items kept", "paths, links, colours, headings, decisions, failures of the history (compact diff)", "group", func(n string, a *agg) textCell {
		if a.items == 0 {
			return text("–")
		}
		share := float64(a.kept) / float64(a.items)
		return textCell{Text: fmt.Sprintf("%s of %s", pct(share), thousands(int64(a.items))), Class: scoreClass(share)}
	})
	row("paths lost", "", "sub", func(n string, a *agg) textCell { return countCell(a.lostPaths, a.measured) })
	row("decisions lost", "", "sub", func(n string, a *agg) textCell { return countCell(a.lostDecisions, a.measured) })
	row("rules broken", "the prompt's output rules, counted per occurrence", "sub", func(n string, a *agg) textCell { return countCell(a.rules, a.measured) })
	row("leaks", "XML tags copied from the prompt", "sub", func(n string, a *agg) textCell { return countCell(a.leaks, a.measured) })
	if r.Eval != nil {
		ptr := func(v *float64, bundles int) textCell {
			if v == nil {
				return textCell{Text: "n/a", Title: "no bundle measurable by it"}
			}
			return textCell{Text: score(*v), Class: scoreClass(*v), Title: fmt.Sprintf("over %d %s", bundles, plural(bundles, "bundle", "bundles"))}
		}
		row("grounded score", "the headline: share of what the agent used next from the compacted part that the briefing holds within the target, lowered past it (compact eval, offline)", "group", func(n string, a *agg) textCell {
			s := sides[n]
			if s == nil || s.Bundles == 0 {
				return text("–")
			}
			return ptr(s.Overall, s.Measurable)
		})
		row("coverage", "mean share of the coverage probes (the compacted history's files, failures, facts, requests) answered; copying raises it", "group", func(n string, a *agg) textCell {
			s := sides[n]
			if s == nil || s.Bundles == 0 {
				return text("–")
			}
			return ptr(s.Coverage, s.Bundles)
		})
		for _, k := range eval.Kinds {
			row(string(k), "", "sub", func(n string, a *agg) textCell {
				s := sides[n]
				if s == nil {
					return text("–")
				}
				x, ok := s.Kinds[k]
				if !ok {
					return text("–")
				}
				return textCell{Text: score(x), Class: scoreClass(x)}
			})
		}
		row("probes lost", "", "sub", func(n string, a *agg) textCell {
			if s := sides[n]; s != nil {
				return text(thousands(int64(s.Lost)) + " of " + thousands(int64(s.Probes)))
			}
			return text("–")
		})
		if len(r.Names) > 1 {
			row("bundles below "+r.Baseline, "bundles where this briefing scores below the baseline", "sub", func(n string, a *agg) textCell {
				s := sides[n]
				if s == nil || n == r.Baseline {
					return text("–")
				}
				c := text(strconv.Itoa(s.Regressed))
				if s.Regressed > 0 {
					c.Class = "worse"
				}
				return c
			})
		}
	}
	judged := false
	for _, n := range r.Names {
		judged = judged || len(aggs[n].judged) > 0
	}
	if judged {
		row("judged score", "mean grade of the judge, 0 to 5 ("+strings.Join(r.Judges, ", ")+")", "group", func(n string, a *agg) textCell {
			if len(a.judged) == 0 {
				return text("–")
			}
			m := 0.0
			for _, x := range a.judged {
				m += x
			}
			m /= float64(len(a.judged))
			return textCell{Text: fmt.Sprintf("%.2f", m), Class: scoreClass(m / 5), Title: fmt.Sprintf("%d %s judged", len(a.judged), plural(len(a.judged), "bundle", "bundles"))}
		})
		v.JudgeNames = strings.Join(r.Judges, ", ")
	}

	if r.Eval != nil {
		for _, p := range r.Eval.Pairs {
			if p.A != r.Baseline || p.N == 0 {
				continue
			}
			cls := ""
			switch {
			case p.CIHigh < 0:
				cls = "worse"
			case p.CILow > 0:
				cls = "best"
			}
			v.Pairs = append(v.Pairs, pairLine{Name: p.B, Cells: []textCell{
				text(strconv.Itoa(p.N)), text(score(p.MeanA)), text(score(p.MeanB)), {Text: signed(p.Diff), Class: cls},
				text("[" + signed(p.CILow) + ", " + signed(p.CIHigh) + "]"), text(strconv.Itoa(p.Wins)), text(strconv.Itoa(p.Losses)), text(strconv.Itoa(p.Ties)),
			}})
		}
		groups := []barGroup{{Label: "grounded"}}
		for _, k := range eval.Kinds {
			groups = append(groups, barGroup{Label: string(k)})
		}
		for _, n := range r.Names {
			s := sides[n]
			for gi := range groups {
				x := math.NaN()
				if s != nil && s.Bundles > 0 {
					if gi == 0 {
						if s.Overall != nil {
							x = *s.Overall
						}
					} else if y, ok := s.Kinds[eval.Kinds[gi-1]]; ok {
						x = y
					}
				}
				groups[gi].Values = append(groups[gi].Values, x)
			}
		}
		v.ScoreChart = barChart("grounded score, and coverage by kind", r.Names, groups, 1, score)
		bins := []string{"<.5", ".5", ".6", ".7", ".8", ".9", "1"}
		var counts [][]int
		for _, n := range r.Names {
			c := make([]int, len(bins))
			for _, x := range aggs[n].scores {
				switch {
				case x >= 1-1e-9:
					c[6]++
				case x < 0.5:
					c[0]++
				default:
					c[min(5, int(math.Floor(x*10))-4)]++
				}
			}
			counts = append(counts, c)
		}
		v.DistChart = histChart("distribution of grounded scores", r.Names, bins, counts)
	}
	if judged {
		var groups []barGroup
		for _, d := range eval.Dimensions {
			g := barGroup{Label: strings.ReplaceAll(d, "_", " ")}
			for _, n := range r.Names {
				x := math.NaN()
				if s := sides[n]; s != nil && s.Judged != nil {
					x = s.Judged.Dimensions[d]
				}
				g.Values = append(g.Values, x)
			}
			groups = append(groups, g)
		}
		v.JudgedChart = barChart("judged scores by dimension", r.Names, groups, 5, func(x float64) string { return fmt.Sprintf("%.2f", x) })
	}
	var boxes []boxRow
	for i, n := range r.Names {
		boxes = append(boxes, boxRow{Name: n, Class: seriesClass(i), Values: aggs[n].chars})
	}
	target := math.NaN()
	if r.Target > 0 {
		target = float64(r.Target)
	}
	v.SizeChart = boxChart("briefing sizes against the target", boxes, target, "target "+kSize(float64(r.Target)), kSize)
}

func countCell(n, measured int) textCell {
	if measured == 0 {
		return textCell{Text: "–"}
	}
	c := textCell{Text: thousands(int64(n))}
	if n > 0 {
		c.Class = "worse"
	}
	return c
}

func (r *Report) bundleRow(i int, b *Bundle) bundleRow {
	row := bundleRow{ID: "b" + strconv.Itoa(i+1), Name: b.Name, Dir: b.Dir, Rank: i + 1}
	for _, n := range r.Names {
		s := b.Sides[n]
		c := scoreCell{Name: n, Score: "–"}
		if s != nil {
			c.Chars = kSize(float64(s.Chars))
			if s.Score != nil {
				c.Score = score(*s.Score)
				c.Class = scoreClass(*s.Score)
			}
			c.Title = fmt.Sprintf("%s: %s characters", n, thousands(int64(s.Chars)))
			if s.Score != nil {
				c.Title += fmt.Sprintf(", %d %s lost of %d", s.Lost, plural(s.Lost, "probe", "probes"), b.Probes)
			}
			if s.Judged != nil {
				c.Title += fmt.Sprintf(", judged %.2f", *s.Judged)
			}
		}
		row.Cells = append(row.Cells, c)
	}
	row.Flags = b.Worse
	if len(r.Names) <= 2 {
		// One run: its name says nothing.
		row.Flags = nil
		for _, f := range b.Worse {
			row.Flags = append(row.Flags, f[strings.Index(f, ": ")+2:])
		}
	}
	return row
}

// chainViews draws every chain of more than one bundle, longest first:
// the first eagerChains at once, the rest for a packed section. n is the
// number of chains (bundle.Chains), those of one bundle included, which
// have nothing to draw.
func (r *Report) chainViews() (eager, more []chainView, n int) {
	groups := bundle.Chains(len(r.Bundles), func(i int) bundle.ChainLink {
		b := r.Bundles[i]
		return bundle.ChainLink{Dir: b.Dir, Chain: b.Chain, Position: b.Compression}
	})
	var drawn [][]*Bundle
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		bs := make([]*Bundle, len(g))
		for j, i := range g {
			bs[j] = r.Bundles[i]
		}
		drawn = append(drawn, bs)
	}
	sort.SliceStable(drawn, func(i, j int) bool { return len(drawn[i]) > len(drawn[j]) })
	var all []chainView
	for _, bs := range drawn {
		all = append(all, r.chainView(bs[0].Chain, bs))
	}
	if len(all) > eagerChains {
		return all[:eagerChains], all[eagerChains:], len(groups)
	}
	return all, nil, len(groups)
}

func (r *Report) chainView(name string, bs []*Bundle) chainView {
	cv := chainView{Name: relTo(r.Root, name)}
	size := lineChartSpec{W: 300, H: 150, XLabel: "compression", YLabel: "characters", XInts: true, XMin: math.Inf(1), XMax: math.Inf(-1), HLine: math.NaN()}
	ret := lineChartSpec{W: 300, H: 150, XLabel: "compression", YLabel: "grounded score", XInts: true, XMin: math.Inf(1), XMax: math.Inf(-1),
		YMin: 0, YMax: 1, YFormat: func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }, HLine: math.NaN()}
	maxChars := 0.0
	hasScore := false
	for i, n := range r.Names {
		s1 := lineSeries{Name: n, Class: seriesClass(i)}
		s2 := lineSeries{Name: n, Class: seriesClass(i)}
		for _, b := range bs {
			x := float64(b.Compression)
			size.XMin, size.XMax = math.Min(size.XMin, x), math.Max(size.XMax, x)
			s := b.Sides[n]
			if s == nil {
				continue
			}
			s1.X, s1.Y = append(s1.X, x), append(s1.Y, float64(s.Chars))
			maxChars = math.Max(maxChars, float64(s.Chars))
			if s.Score != nil {
				s2.X, s2.Y = append(s2.X, x), append(s2.Y, *s.Score)
				hasScore = true
			}
		}
		size.Series = append(size.Series, s1)
		ret.Series = append(ret.Series, s2)
	}
	ret.XMin, ret.XMax = size.XMin, size.XMax
	size.YMax = maxChars
	if r.Target > 0 {
		// Drawn where it is within reach of the sizes; above them, the
		// chart says where it is.
		size.HLine, size.HLabel = float64(r.Target), "target "+kSize(float64(r.Target))
		if float64(r.Target) <= maxChars*1.5 {
			size.YMax = math.Max(maxChars, float64(r.Target))
		}
	}
	size.Label = "briefing sizes along " + cv.Name
	ret.Label = "grounded scores along " + cv.Name
	cv.Size = lineChart(size)
	if hasScore {
		cv.Score = lineChart(ret)
	}
	first, last := bs[0].Sides[eval.Actual], bs[len(bs)-1].Sides[eval.Actual]
	cv.Text = fmt.Sprintf("%d %s", len(bs), plural(len(bs), "briefing", "briefings"))
	if first != nil && last != nil {
		cv.Text += fmt.Sprintf("; the app's grew from %s to %s characters", thousands(int64(first.Chars)), thousands(int64(last.Chars)))
	}
	return cv
}
