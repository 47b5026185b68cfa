package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/simulate"
)

// Simulation is one `compact simulate --json` file: a timeline of one
// strategy per history (plain simulate), the rows of --compare or --sweep,
// or the chats of --against-recorded.
type Simulation struct {
	File      string
	Timelines *simulate.Timelines
	Rows      *simRows
	Recorded  []simulate.RecordedChat
	// Sessions are --against-recorded on agents' sessions: where each
	// agent compacted, by step.
	Sessions []agentSession
	// live is, per history of Timelines, the context the agent really
	// sent at each step, where its session records it.
	live map[string][]int64
}

// agentSession is what the page reads of simulate's check against an
// agent's recorded compactions (decoded by name, not by simulate's type,
// so that fields it adds change nothing here).
type agentSession struct {
	Name     string `json:"name"`
	Source   string `json:"source"`
	Steps    int    `json:"steps"`
	Recorded []struct {
		Step      int   `json:"step"`
		Message   int   `json:"message"`
		PreTokens int64 `json:"preTokens"`
	} `json:"recorded"`
	Strategies []struct {
		Strategy    string `json:"strategy"`
		Compactions []struct {
			Step int `json:"step"`
		} `json:"compactions"`
	} `json:"strategies"`
}

// simRows are the rows of --compare (Knob empty) or --sweep.
type simRows struct {
	Knob       string         `json:"knob"`
	Values     []float64      `json:"values"`
	Summarizer string         `json:"summarizer"`
	Histories  []string       `json:"histories"`
	Rows       []simulate.Row `json:"rows"`
}

// maxSimulationFile bounds what ReadSimulation reads.
const maxSimulationFile = 1 << 30

// ReadSimulation reads a file written by `compact simulate --json`.
func ReadSimulation(path string) (*Simulation, error) {
	data, err := fsutil.ReadFileLimit(path, maxSimulationFile)
	if err != nil {
		return nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("%s is not the JSON of `compact simulate --json`: %v", path, err)
	}
	s := &Simulation{File: path}
	strict := func(v any) error {
		dec := json.NewDecoder(bytes.NewReader(data))
		return dec.Decode(v)
	}
	switch {
	case keys["strategy"] != nil && keys["histories"] != nil:
		s.Timelines = &simulate.Timelines{}
		if err = strict(s.Timelines); err == nil {
			var live struct {
				Histories []struct {
					Name       string  `json:"name"`
					LiveTokens []int64 `json:"liveTokens"`
				} `json:"histories"`
			}
			if strict(&live) == nil {
				for _, h := range live.Histories {
					if len(h.LiveTokens) > 0 {
						if s.live == nil {
							s.live = map[string][]int64{}
						}
						s.live[h.Name] = h.LiveTokens
					}
				}
			}
		}
	case keys["rows"] != nil:
		s.Rows = &simRows{}
		err = strict(s.Rows)
	case keys["sessions"] != nil:
		var doc struct {
			Sessions []agentSession `json:"sessions"`
		}
		err = strict(&doc)
		s.Sessions = doc.Sessions
	case keys["chats"] != nil:
		var doc struct {
			Chats []simulate.RecordedChat `json:"chats"`
		}
		err = strict(&doc)
		s.Recorded = doc.Chats
	default:
		return nil, fmt.Errorf("%s is not the JSON of `compact simulate --json` (no strategy and histories, rows, chats or sessions)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return s, nil
}

// simView is the simulate section of the page.
type simView struct {
	Files      []string
	Strategies []legendItem
	Histories  []simHistory
	Tables     []simTable
	Recorded   []simRecorded
	HasApp     bool
	HasAgent   bool
	// NoCharts says why there is no chart, when no file has timelines.
	NoCharts string
}

type legendItem struct{ Name, Class string }

type simHistory struct {
	Name, Title string
	Window      int
	Chart       template.HTML
	Lines       []string
}

type simTable struct {
	File, Knob, Summarizer string
	Histories              int
	Rows                   [][]string
	Head                   []string
}

type simRecorded struct {
	File string
	// Agents: the rows are agents' sessions (name, source, steps, the
	// agent's compactions, each strategy's), not chats of a database.
	Agents bool
	Rows   [][]string
}

// agentMark is one compaction an agent recorded: after step, the n-th,
// with the context it recorded for it (0: none).
type agentMark struct {
	step, n int
	tokens  int64
}

// simulationView lays out the simulate section: one chart per history
// (the timelines of every file, one line per strategy), the tables of
// --compare and --sweep files, and the --against-recorded chats. app
// maps a chat id to the boundaries (message indexes) where the app
// compacted it, from the bundles.
func simulationView(sims []*Simulation, app map[string][]int) *simView {
	if len(sims) == 0 {
		return nil
	}
	v := &simView{}
	byHist := map[string][]simEntry{}
	var order []string
	strategies := map[string]int{}
	recorded := map[string][]int{}
	agent := map[string][]agentMark{}
	live := map[string][]int64{}
	for _, s := range sims {
		v.Files = append(v.Files, s.File)
		switch {
		case s.Timelines != nil:
			name := s.Timelines.Strategy
			if _, ok := strategies[name]; !ok {
				strategies[name] = len(v.Strategies)
				v.Strategies = append(v.Strategies, legendItem{Name: name, Class: seriesClass(len(v.Strategies))})
			}
			for i := range s.Timelines.Histories {
				h := &s.Timelines.Histories[i]
				if _, ok := byHist[h.Name]; !ok {
					order = append(order, h.Name)
				}
				byHist[h.Name] = append(byHist[h.Name], simEntry{strategies[name], h})
			}
			for n, l := range s.live {
				live[n] = l
			}
		case s.Rows != nil:
			v.Tables = append(v.Tables, simTableOf(s))
		case s.Sessions != nil:
			rec := simRecorded{File: s.File, Agents: true}
			for _, a := range s.Sessions {
				var steps []int
				for i, p := range a.Recorded {
					steps = append(steps, p.Step)
					agent[a.Name] = append(agent[a.Name], agentMark{step: p.Step, n: i + 1, tokens: p.PreTokens})
				}
				row := []string{a.Name, a.Source, strconv.Itoa(a.Steps), joinInts(steps)}
				var sims []string
				for _, st := range a.Strategies {
					var cs []int
					for _, c := range st.Compactions {
						cs = append(cs, c.Step)
					}
					if len(cs) == 0 {
						sims = append(sims, st.Strategy+": none")
					} else {
						sims = append(sims, st.Strategy+": "+joinInts(cs))
					}
				}
				rec.Rows = append(rec.Rows, append(row, strings.Join(sims, "; ")))
			}
			v.Recorded = append(v.Recorded, rec)
		default:
			rec := simRecorded{File: s.File}
			for _, c := range s.Recorded {
				rec.Rows = append(rec.Rows, []string{c.Chat, c.Title, strconv.Itoa(c.Steps), strconv.Itoa(c.Recorded),
					strconv.Itoa(c.Simulated), strconv.Itoa(len(c.Matches)), strconv.Itoa(len(c.Misses)), strconv.Itoa(len(c.Extra))})
				for _, p := range append(append([]simulate.RecordedPoint{}, c.Matches...), c.Misses...) {
					recorded[c.Chat] = append(recorded[c.Chat], p.Message)
				}
			}
			v.Recorded = append(v.Recorded, rec)
		}
	}
	for _, name := range order {
		marks := map[int]bool{}
		for _, b := range app[name] {
			marks[b] = true
		}
		for _, b := range recorded[name] {
			marks[b] = true
		}
		var bounds []int
		for b := range marks {
			bounds = append(bounds, b)
		}
		sort.Ints(bounds)
		sh := simHistoryOf(name, byHist[name], bounds, agent[name], live[name])
		v.HasApp = v.HasApp || len(bounds) > 0
		v.HasAgent = v.HasAgent || len(agent[name]) > 0 || len(live[name]) > 0
		v.Histories = append(v.Histories, sh)
	}
	if len(v.Histories) == 0 {
		var held []string
		if len(v.Tables) > 0 {
			held = append(held, "a --compare or --sweep file holds each strategy's totals over the histories")
		}
		if len(v.Recorded) > 0 {
			held = append(held, "an --against-recorded file holds where each compacted")
		}
		v.NoCharts = "No chart of the context over the steps: the files hold no history."
		if len(held) > 0 {
			v.NoCharts = "No chart of the context over the steps: " + strings.Join(held, ", and ") +
				", not the steps; the charts draw the timelines of compact simulate --json run once per strategy (--strategy NAME)."
		}
	}
	return v
}

// simEntry is one strategy's timeline of a history.
type simEntry struct {
	strategy int
	h        *simulate.HistoryTimeline
}

// simHistoryOf charts one history: context tokens over the steps, one line
// per strategy (a drop where it compacted), a dot where each compacted, a
// cross where a guardrail rejected a compaction, and a dashed line at the
// first step after each boundary where the app compacted (appBounds, chat
// message indexes).
func simHistoryOf(name string, entries []simEntry, appBounds []int, agent []agentMark, live []int64) simHistory {
	sh := simHistory{Name: name}
	spec := lineChartSpec{W: 640, H: 220, XLabel: "step", YLabel: "context tokens", XInts: true, XMin: 1, HLine: math.NaN()}
	maxY, maxX := 0.0, 1.0
	var firstSteps []simStep
	var firstOrigin []int
	for _, e := range entries {
		h := e.h
		if sh.Title == "" {
			sh.Title = h.Title
		}
		sh.Window = max(sh.Window, h.ContextWindow)
		if h.Timeline == nil {
			continue
		}
		se := lineSeries{Name: h.Timeline.Strategy, Class: seriesClass(e.strategy)}
		steps := h.Timeline.Steps
		var firings, rejected int
		for _, st := range steps {
			x := float64(st.Step)
			maxX = math.Max(maxX, x)
			maxY = math.Max(maxY, st.ContextTokens)
			se.X, se.Y = append(se.X, x), append(se.Y, st.ContextTokens)
			switch {
			case st.Rejected != "":
				rejected++
				se.Marks = append(se.Marks, chartMark{X: x, Y: st.ContextTokens, Shape: "cross",
					Title: fmt.Sprintf("%s, step %d: compaction rejected (%s)", se.Name, st.Step, st.Rejected)})
			case st.Boundary >= 0 || st.Compacted > 0:
				firings++
				title := fmt.Sprintf("%s compacted at step %d: %s → %s tokens", se.Name, st.Step, thousands(int64(st.ContextTokens)), thousands(int64(st.AfterTokens)))
				if st.Compacted > 0 {
					title += fmt.Sprintf(", %d %s", st.Compacted, plural(st.Compacted, "message", "messages"))
				}
				if st.Boundary >= 0 {
					title += fmt.Sprintf(", kept from message %d", originOf(h.Origin, st.Boundary))
				}
				se.Marks = append(se.Marks, chartMark{X: x, Y: st.ContextTokens, Shape: "dot", Title: title})
				se.X, se.Y = append(se.X, x), append(se.Y, st.AfterTokens)
			}
		}
		if firstSteps == nil {
			for _, st := range steps {
				firstSteps = append(firstSteps, simStep{step: st.Step, index: st.Index})
			}
			firstOrigin = h.Origin
		}
		spec.Series = append(spec.Series, se)
		sh.Lines = append(sh.Lines, fmt.Sprintf("%s: %s, %d rejected; %s tokens sent, peak %s",
			se.Name, count(firings, "compaction"), rejected, thousands(int64(h.Timeline.TokensSent)), thousands(int64(h.Timeline.PeakContext))))
	}
	if len(live) > 0 && len(firstSteps) > 0 {
		se := lineSeries{Name: "the agent's live context", Class: "live"}
		for i, v := range live {
			if i < len(firstSteps) && v > 0 {
				se.X, se.Y = append(se.X, float64(firstSteps[i].step)), append(se.Y, float64(v))
				maxY = math.Max(maxY, float64(v))
			}
		}
		spec.Series = append(spec.Series, se)
	}
	for _, a := range agent {
		title := fmt.Sprintf("the agent compacted after step %d (its compaction %d", a.step, a.n)
		if a.tokens > 0 {
			title += fmt.Sprintf(", at %s tokens", thousands(a.tokens))
		}
		spec.VMarks = append(spec.VMarks, vMark{X: float64(a.step), Title: title + ")"})
	}
	if len(agent) > 0 {
		var steps []int
		for _, a := range agent {
			steps = append(steps, a.step)
		}
		sh.Lines = append(sh.Lines, fmt.Sprintf("the agent: %s, after %s %s", count(len(agent), "compaction"), plural(len(steps), "step", "steps"), joinInts(steps)))
	}
	for _, b := range appBounds {
		if x, ok := stepAt(firstSteps, firstOrigin, b); ok {
			spec.VMarks = append(spec.VMarks, vMark{X: float64(x), Title: fmt.Sprintf("the app compacted this chat: the messages before message %d summarized (drawn at the first step after it)", b)})
		}
	}
	if len(appBounds) > 0 {
		sh.Lines = append(sh.Lines, fmt.Sprintf("the app: %s, %s %s", count(len(appBounds), "compaction"),
			plural(len(appBounds), "boundary at message", "boundaries at messages"), joinInts(appBounds)))
	}
	if sh.Window > 0 {
		// Drawn where it is within reach of the context; above it, the
		// chart says where it is.
		spec.HLine, spec.HLabel = float64(sh.Window), "window "+thousands(int64(sh.Window))
		if float64(sh.Window) < maxY*1.6 {
			maxY = math.Max(maxY, float64(sh.Window))
		}
	}
	spec.XMax, spec.YMax = maxX, maxY
	spec.Label = "context tokens over the steps of " + name
	sh.Chart = lineChart(spec)
	return sh
}

type simStep struct{ step, index int }

// originOf is the input's index (chat message, JSONL line) of timeline
// index i.
func originOf(origin []int, i int) int {
	if i >= 0 && i < len(origin) {
		return origin[i]
	}
	return i
}

// stepAt is the first step whose message is at or after chat message b.
func stepAt(steps []simStep, origin []int, b int) (int, bool) {
	for _, s := range steps {
		if originOf(origin, s.index) >= b {
			return s.step, true
		}
	}
	return 0, false
}

func joinInts(xs []int) string {
	var b bytes.Buffer
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

func simTableOf(s *Simulation) simTable {
	t := simTable{File: s.File, Knob: s.Rows.Knob, Summarizer: s.Rows.Summarizer, Histories: len(s.Rows.Histories)}
	if t.Knob != "" {
		t.Head = append(t.Head, t.Knob)
	}
	t.Head = append(t.Head, "strategy", "chats", "steps", "compactions", "summarizer calls", "rejected", "tokens sent", "per step", "peak", "kept at end", "must-keep", "probes kept")
	for _, r := range s.Rows.Rows {
		var row []string
		if t.Knob != "" {
			v := "–"
			if r.Value != nil {
				v = strconv.FormatFloat(*r.Value, 'f', -1, 64)
			}
			row = append(row, v)
		}
		mk, pk := "–", "–"
		if r.MustKeep != nil && r.MustKeep.Items > 0 {
			mk = fmt.Sprintf("%d/%d (%s)", r.MustKeep.Kept, r.MustKeep.Items, pct(r.MustKeep.Ratio()))
		}
		if r.Probes != nil && r.Probes.Overall.Total > 0 {
			pk = fmt.Sprintf("%d/%d (%s)", r.Probes.Overall.Kept, r.Probes.Overall.Total, pct(r.Probes.Overall.Share()))
		}
		row = append(row, r.Strategy, strconv.Itoa(r.Chats), strconv.Itoa(r.Steps), strconv.Itoa(r.Compactions), strconv.Itoa(r.SummarizerCalls),
			strconv.Itoa(r.Rejected), thousands(int64(r.TokensSent)), thousands(int64(r.TokensPerStep)), thousands(int64(r.PeakContext)),
			strconv.Itoa(r.KeptAtEnd), mk, pk)
		t.Rows = append(t.Rows, row)
	}
	return t
}
