package boundary

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const vectorDir = "../../testdata/conformance/vectors/"

// readJSONL decodes every line of a vector file into a new T.
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open(vectorDir + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s line %d: %v", name, len(out)+1, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
}

type walkVector struct {
	Name            string    `json:"name"`
	Tokens          []float64 `json:"tokens"`
	Raw             *string   `json:"raw"`
	ExpectedTokens  []float64 `json:"expectedTokens"`
	ContextWindow   *int      `json:"contextWindow"`
	MinUncompressed *int      `json:"minUncompressedMessages"`
	Expected        Result    `json:"expected"`
}

// vectorFields compares only what the vectors' "expected" object holds.
var vectorFields = cmpopts.IgnoreFields(Result{},
	"MessageCount", "ContextWindow", "WindowFromLookup", "StopReason", "StopIndex", "KeptTokens")

func mustDefault(t testing.TB, profile string) Params {
	t.Helper()
	p, err := DefaultParams(profile)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWalkVectors(t *testing.T) {
	for _, v := range readJSONL[walkVector](t, "boundary-walk.jsonl") {
		t.Run(v.Name, func(t *testing.T) {
			tokens := v.Tokens
			if v.Raw != nil {
				// Message input: the estimates come from the estimator, whose
				// message-level path is tested by the estimator package
				// (internal/estimate) and by the boundary command. Here the
				// walk runs on the listed estimates.
				if v.ExpectedTokens == nil {
					t.Fatal("raw vector without expectedTokens")
				}
				tokens = v.ExpectedTokens
			}
			p := mustDefault(t, ProfileE3E)
			p.MinUncompressed = v.MinUncompressed
			got := Walk(tokens, v.ContextWindow, p)
			if d := cmp.Diff(v.Expected, got, vectorFields); d != "" {
				t.Errorf("Walk(%v, ctx %v, min %v) (-want +got):\n%s", tokens, fmtPtr(v.ContextWindow), fmtPtr(v.MinUncompressed), d)
			}
			// The debugging fields must agree with the result.
			if got.MessageCount != len(tokens) {
				t.Errorf("MessageCount %d, want %d", got.MessageCount, len(tokens))
			}
			if got.WindowFromLookup != (v.ContextWindow != nil) {
				t.Errorf("WindowFromLookup %v with contextWindow %v", got.WindowFromLookup, fmtPtr(v.ContextWindow))
			}
			if got.KeptTokens > float64(got.KeptBudget) {
				t.Errorf("KeptTokens %v over the budget %d", got.KeptTokens, got.KeptBudget)
			}
		})
	}
}

func fmtPtr(p *int) any {
	if p == nil {
		return "null"
	}
	return *p
}

type triggerVector struct {
	Name          string   `json:"name"`
	UsedTokens    float64  `json:"usedTokens"`
	Threshold     *float64 `json:"threshold"`
	ContextWindow *int     `json:"contextWindow"`
	HardCap       float64  `json:"hardCap"`
	Expected      bool     `json:"expected"`
}

func TestTriggerVectors(t *testing.T) {
	for _, v := range readJSONL[triggerVector](t, "trigger.jsonl") {
		t.Run(v.Name, func(t *testing.T) {
			p := mustDefault(t, ProfileE3E) // threshold null → 0.65
			if v.Threshold != nil {
				p.Threshold = *v.Threshold
			}
			p.HardCap = v.HardCap
			if got := Trigger(v.UsedTokens, v.ContextWindow, p); got != v.Expected {
				t.Errorf("Trigger(%v, %v, threshold %v, cap %v) = %v, want %v",
					v.UsedTokens, fmtPtr(v.ContextWindow), p.Threshold, p.HardCap, got, v.Expected)
			}
		})
	}
}

func TestExplainTrigger(t *testing.T) {
	ctx := 200000
	p := mustDefault(t, ProfileE3E)
	limit := 130000.0
	tests := []struct {
		name string
		used float64
		ctx  *int
		thr  float64
		want TriggerResult
	}{
		{"lookup failed", 1e9, nil, 0.65, TriggerResult{UsedTokens: 1e9, Threshold: 0.65, HardCap: 200000, Reason: ReasonLookupFailed}},
		{"equal", 130000, &ctx, 0.65, TriggerResult{UsedTokens: 130000, Threshold: 0.65, ContextWindow: &ctx, HardCap: 200000, Limit: &limit, Reason: ReasonNotAbove}},
		{"above", 130001, &ctx, 0.65, TriggerResult{Trigger: true, UsedTokens: 130001, Threshold: 0.65, ContextWindow: &ctx, HardCap: 200000, Limit: &limit, Reason: ReasonAboveLimit}},
		{"negative", 1e9, &ctx, -0.65, TriggerResult{UsedTokens: 1e9, Threshold: -0.65, ContextWindow: &ctx, HardCap: 200000, Limit: ptr(-130000.0), Reason: ReasonDisabled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := p
			q.Threshold = tt.thr
			got := ExplainTrigger(tt.used, tt.ctx, q)
			if got.Explanation == "" {
				t.Error("no explanation")
			}
			if d := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(TriggerResult{}, "Explanation")); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestTriggerNaN(t *testing.T) {
	ctx := 200000
	p := mustDefault(t, ProfileE3E)
	if Trigger(math.NaN(), &ctx, p) {
		t.Error("NaN usedTokens triggered")
	}
	q := p
	q.Threshold = math.NaN()
	if r := ExplainTrigger(1e12, &ctx, q); r.Trigger || r.Reason != ReasonDisabled {
		t.Errorf("NaN threshold: %+v", r)
	}
	q = p
	q.HardCap = math.NaN() // Math.min(…, NaN) is NaN: nothing is above it
	if Trigger(1e12, &ctx, q) {
		t.Error("NaN hard cap triggered")
	}
	if !Trigger(math.Inf(1), &ctx, p) {
		t.Error("+Inf usedTokens did not trigger")
	}
	// The JSON form survives NaN.
	r := ExplainTrigger(math.NaN(), &ctx, q)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back TriggerResult
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	if d := cmp.Diff(r, back, cmpopts.EquateNaNs()); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
}

func TestWalkNaN(t *testing.T) {
	nan := math.NaN()
	ctx := 200000
	fill := func(n int, v float64) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	withNaN := func(s []float64, at int) []float64 { s[at] = nan; return s }
	tests := []struct {
		name       string
		tokens     []float64
		min        int
		wantKind   string
		wantB      *int
		wantStop   string
		wantStopAt *int
		nanAcc     bool
	}{
		{
			// The newest message is NaN: the budget test never fires, the
			// 50000-token message is kept, and the floor stops the walk.
			name:     "nan newest, floor stops",
			tokens:   append(append(fill(10, 100), 50000, 50000, 50000), nan),
			min:      5,
			wantKind: KindCompress, wantB: ptr(9), wantStop: StopFloor, wantStopAt: ptr(9), nanAcc: true,
		},
		{
			name:     "nan newest, start stops",
			tokens:   []float64{50000, 50000, nan},
			min:      5,
			wantKind: KindSkipAllFit, wantStop: StopStart, wantStopAt: ptr(0), nanAcc: true,
		},
		{
			// Without the NaN the same history stops on the budget.
			name:     "no nan, budget stops",
			tokens:   append(append(fill(10, 100), 50000, 50000, 50000), 1),
			min:      5,
			wantKind: KindCompress, wantB: ptr(13), wantStop: StopBudget, wantStopAt: ptr(12),
		},
		{
			// A NaN older than the budget stop does not matter.
			name:     "nan behind the budget stop",
			tokens:   withNaN(append(fill(5, 100), 30000, 30000), 0),
			min:      5,
			wantKind: KindCompress, wantB: ptr(6), wantStop: StopBudget, wantStopAt: ptr(5),
		},
		{
			// The budget test works until the NaN, then only the floor can stop.
			name:     "nan in the middle",
			tokens:   withNaN(append(fill(8, 30000), 100, 100), 7),
			min:      5,
			wantKind: KindCompress, wantB: ptr(5), wantStop: StopFloor, wantStopAt: ptr(5), nanAcc: true,
		},
		{
			name:     "single nan",
			tokens:   []float64{nan},
			min:      10,
			wantKind: KindSkipAllFit, wantStop: StopStart, wantStopAt: ptr(0), nanAcc: true,
		},
		{
			// A NaN message alone on the floor: floor 5, the walk keeps 5.
			name:     "all nan",
			tokens:   fill(8, nan),
			min:      5,
			wantKind: KindCompress, wantB: ptr(3), wantStop: StopFloor, wantStopAt: ptr(3), nanAcc: true,
		},
		{
			// +Inf busts the budget like any big number.
			name:     "inf newest",
			tokens:   []float64{1, 1, math.Inf(1)},
			min:      5,
			wantKind: KindCompress, wantB: ptr(2), wantStop: StopBudget, wantStopAt: ptr(2),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustDefault(t, ProfileE3E)
			p.MinUncompressed = &tt.min
			got := Walk(tt.tokens, &ctx, p)
			if got.Kind != tt.wantKind {
				t.Errorf("Kind %q, want %q", got.Kind, tt.wantKind)
			}
			if d := cmp.Diff(tt.wantB, got.BoundaryIndex); d != "" {
				t.Errorf("BoundaryIndex (-want +got):\n%s", d)
			}
			if got.StopReason != tt.wantStop {
				t.Errorf("StopReason %q, want %q", got.StopReason, tt.wantStop)
			}
			if d := cmp.Diff(tt.wantStopAt, got.StopIndex); d != "" {
				t.Errorf("StopIndex (-want +got):\n%s", d)
			}
			if math.IsNaN(got.KeptTokens) != tt.nanAcc {
				t.Errorf("KeptTokens %v, NaN wanted: %v", got.KeptTokens, tt.nanAcc)
			}
			// The JSON form must survive NaN.
			data, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var back Result
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("%s: %v", data, err)
			}
			if d := cmp.Diff(got, back, cmpopts.EquateNaNs()); d != "" {
				t.Errorf("JSON round trip (-want +got):\n%s", d)
			}
		})
	}
}

func TestAgentParams(t *testing.T) {
	tests := []struct {
		profile, agent string
		want           Params
	}{
		{ProfileE3E, AgentBase, Params{Threshold: 0.65, HardCap: 200000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 10, MinFloor: 5, DefaultContextWindow: 100000}},
		{ProfileHead, AgentBase, Params{Threshold: 0.65, HardCap: 100000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 10, MinFloor: 5, DefaultContextWindow: 100000, SkipAbsent: true, NeedBoundaryID: true}},
		{"v1.29.0-nohost", AgentBase, Params{Threshold: 0.65, HardCap: 100000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 10, MinFloor: 5, DefaultContextWindow: 100000, SkipAbsent: true, NeedBoundaryID: true}},
		{"v1.4.1-nightly20260602c001", AgentBase, Params{Threshold: 0.65, HardCap: 200000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 10, MinFloor: 5, DefaultContextWindow: 100000}},
		{ProfileE3E, AgentChat, Params{Threshold: 0.5, HardCap: 200000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 12, MinFloor: 5, DefaultContextWindow: 100000}},
		{ProfileHead, AgentChat, Params{Threshold: 0.5, HardCap: 100000, KeptFraction: 0.2, KeptCap: 40000, DefaultMin: 12, MinFloor: 5, DefaultContextWindow: 100000, SkipAbsent: true, NeedBoundaryID: true}},
	}
	for _, tt := range tests {
		t.Run(tt.profile+"/"+tt.agent, func(t *testing.T) {
			got, err := AgentParams(tt.profile, tt.agent)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if p, err := DefaultParams(ProfileHead); err != nil || p.Threshold != 0.65 || p.DefaultMin != 10 {
		t.Errorf("DefaultParams(head) = %+v, %v", p, err)
	}
	if _, err := AgentParams("v2", AgentBase); err == nil {
		t.Error("unknown profile accepted")
	}
	if _, err := AgentParams(ProfileE3E, "coder"); err == nil {
		t.Error("unknown agent accepted")
	}
}

// The chat agent's defaults: threshold 0.5 and an unset minimum of 12.
func TestChatAgentDefaults(t *testing.T) {
	p, err := AgentParams(ProfileE3E, AgentChat)
	if err != nil {
		t.Fatal(err)
	}
	ctx := 200000
	tokens := make([]float64, 20)
	for i := range tokens {
		tokens[i] = 1000
	}
	tests := []struct {
		name string
		min  *int
		want Result
	}{
		{"unset min is 12", nil, Result{Kind: KindCompress, BoundaryIndex: ptr(8), KeptCount: ptr(12), KeptBudget: 40000, Floor: 12}},
		{"explicit min 3 is floored to 5", ptr(3), Result{Kind: KindCompress, BoundaryIndex: ptr(15), KeptCount: ptr(5), KeptBudget: 40000, Floor: 5}},
		{"explicit min 10", ptr(10), Result{Kind: KindCompress, BoundaryIndex: ptr(10), KeptCount: ptr(10), KeptBudget: 40000, Floor: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := p
			q.MinUncompressed = tt.min
			if d := cmp.Diff(tt.want, Walk(tokens, &ctx, q), vectorFields); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, tc := range []struct {
		used float64
		want bool
	}{{99999, false}, {100000, false}, {100001, true}} {
		if got := Trigger(tc.used, &ctx, p); got != tc.want {
			t.Errorf("chat Trigger(%v, 200000) = %v, want %v", tc.used, got, tc.want)
		}
	}
}

func TestWalkDebugFields(t *testing.T) {
	p := mustDefault(t, ProfileE3E)
	got := Walk([]float64{2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500, 2500}, nil, p)
	want := Result{
		Kind: KindCompress, BoundaryIndex: ptr(4), KeptCount: ptr(8), KeptBudget: 20000, Floor: 10,
		MessageCount: 12, ContextWindow: 100000, WindowFromLookup: false,
		StopReason: StopBudget, StopIndex: ptr(3), KeptTokens: 20000,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	empty := Walk(nil, ptr(0), p)
	wantEmpty := Result{
		Kind: KindSkipBoundaryLT1, KeptBudget: 0, Floor: 10, SingleMessageWarning: true,
		ContextWindow: 0, WindowFromLookup: true, StopReason: StopEmpty,
	}
	if d := cmp.Diff(wantEmpty, empty); d != "" {
		t.Errorf("empty (-want +got):\n%s", d)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	const wantJSON = `{"result":"compress","boundaryIndex":4,"keptCount":8,"keptBudget":20000,"floor":10,"singleMessageWarning":false,` +
		`"messageCount":12,"contextWindow":100000,"windowFromLookup":false,"stopReason":"budget","stopIndex":3,"keptTokens":20000}`
	if string(data) != wantJSON {
		t.Errorf("JSON\n got %s\nwant %s", data, wantJSON)
	}
}

func BenchmarkWalk(b *testing.B) {
	tokens := make([]float64, 10000)
	for i := range tokens {
		tokens[i] = 1 // stays under the budget: the walk goes all the way
	}
	p := mustDefault(b, ProfileE3E)
	p.MinUncompressed = ptr(len(tokens) + 1)
	ctx := 200000
	b.ReportAllocs()
	for b.Loop() {
		r := Walk(tokens, &ctx, p)
		if r.Kind != KindSkipAllFit {
			b.Fatal(r.Kind)
		}
	}
}

// TestWalkEntriesAgentCore checks the agent-core walk's two departures from
// e3e's, read from base-agent.ts at v1.29.0: a falsy history entry is
// passed over (`if (!histEntry) continue`, before the floor and start
// tests), and a boundary message without an id ends the compression
// (`if (!boundaryMessageId) return`). e3e estimates an absent message as 0
// and counts it, and compresses whatever the id.
func TestWalkEntriesAgentCore(t *testing.T) {
	ctx := 200000
	e3e, _ := DefaultParams(ProfileE3E)
	head, _ := DefaultParams(ProfileHead)
	five := 5
	e3e.MinUncompressed, head.MinUncompressed = &five, &five
	tok := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = 100
		}
		return out
	}
	abs := func(n int, at ...int) []bool {
		out := make([]bool, n)
		for _, i := range at {
			out[i] = true
		}
		return out
	}
	tests := []struct {
		name      string
		p         Params
		tokens    []float64
		e         Entries
		kind      string
		boundary  int // -1: nil
		stop      string
		absentCnt int
	}{
		// Ten messages, floor 5: the walk stops at 5 either way.
		{"e3e plain", e3e, tok(10), Entries{}, KindCompress, 5, StopFloor, 0},
		{"head plain", head, tok(10), Entries{}, KindCompress, 5, StopFloor, 0},
		// An absent message among the kept ones: e3e counts it (estimate
		// 0), head passes over it, so the floor is met one message earlier.
		{"e3e absent kept", e3e, tok(10), Entries{Absent: abs(10, 8)}, KindCompress, 5, StopFloor, 0},
		{"head absent kept", head, tok(10), Entries{Absent: abs(10, 8)}, KindCompress, 5, StopFloor, 1},
		{"head absent at floor", head, tok(10), Entries{Absent: abs(10, 5)}, KindCompress, 4, StopFloor, 1},
		// Four messages, all fit: e3e stops at the start; with message 0
		// absent, head runs off the start and keeps the last one alone.
		{"e3e all fit", e3e, tok(4), Entries{Absent: abs(4, 0)}, KindSkipAllFit, -1, StopStart, 0},
		{"head passes the start", head, tok(4), Entries{Absent: abs(4, 0)}, KindCompress, 3, StopPassedStart, 1},
		// The boundary message has no id: e3e compresses, head gives up.
		{"e3e no id", e3e, tok(10), Entries{NoID: abs(10, 5)}, KindCompress, 5, StopFloor, 0},
		{"head no id", head, tok(10), Entries{NoID: abs(10, 5)}, KindSkipNoBoundaryID, 5, StopFloor, 0},
		{"head no id elsewhere", head, tok(10), Entries{NoID: abs(10, 4, 6)}, KindCompress, 5, StopFloor, 0},
		// Every entry absent: the boundary is clamped to the last, absent
		// one, which has no id.
		{"head all absent", head, tok(3), Entries{Absent: abs(3, 0, 1, 2)}, KindSkipNoBoundaryID, 2, StopPassedStart, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := WalkEntries(tt.tokens, tt.e, &ctx, tt.p)
			got := -1
			if r.BoundaryIndex != nil {
				got = *r.BoundaryIndex
			}
			if r.Kind != tt.kind || got != tt.boundary || r.StopReason != tt.stop || r.Absent != tt.absentCnt {
				t.Errorf("got %s at %d (stop %s, %d absent), want %s at %d (stop %s, %d absent)",
					r.Kind, got, r.StopReason, r.Absent, tt.kind, tt.boundary, tt.stop, tt.absentCnt)
			}
		})
	}
}
