package simulate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/convo"
	"github.com/compactlab/compact/internal/strategy"
)

// recordedChat is a chat of n messages, alternately user and assistant,
// with a stored briefing on the messages of stored.
func recordedChat(n int, stored ...int) (*Input, []strategy.Message) {
	var msgs []strategy.Message
	for i := 0; i < n; i++ {
		role := strategy.RoleUser
		if i%2 == 1 {
			role = strategy.RoleAssistant
		}
		msgs = append(msgs, strategy.Message{ID: fmt.Sprintf("m%d", i), Role: role})
	}
	for _, k := range stored {
		s := strings.Repeat("b", 100*(k+1))
		msgs[k].StoredSummary = &s
	}
	used := int64(9000)
	h := &convo.History{Source: convo.SourceStagewise, Name: "chat1", Title: "T", Model: "m", Branch: msgs, UsedTokens: used, HasUsedTokens: true}
	return &Input{History: h}, msgs
}

// steps makes a timeline: one step per assistant message of n, with the
// context of ctx[k] and a compaction at boundary b[k] (-1 none) at step k.
func steps(n int, ctx []float64, b []int, rejected map[int]bool) *strategy.Timeline {
	tl := &strategy.Timeline{}
	k := 0
	for i := 1; i < n; i += 2 {
		s := strategy.StepReport{Step: k + 1, Index: i, ContextTokens: ctx[k], Boundary: b[k], AfterTokens: ctx[k]}
		if b[k] >= 0 {
			s.Fired, s.AfterTokens, s.SummaryChars = true, ctx[k]/2, 500+k
			if rejected[k] {
				s.Rejected = strategy.RejectNoShrink
			}
		}
		tl.Steps = append(tl.Steps, s)
		k++
	}
	return tl
}

func TestCompareRecorded(t *testing.T) {
	type point struct {
		message, step, nearest int
		note                   string
	}
	tests := []struct {
		name    string
		stored  []int
		ctx     []float64
		b       []int
		reject  map[int]bool
		matches []point
		misses  []point
		extra   []point
	}{
		{"a match", []int{4}, []float64{100, 300, 700, 200}, []int{-1, -1, 4, -1}, nil,
			[]point{{4, 3, -1, ""}}, nil, nil},
		{"a miss below the trigger", []int{4}, []float64{100, 300, 400, 450}, []int{-1, -1, -1, -1}, nil,
			nil, []point{{4, 4, -1, "simulated context stays at or below the trigger (500)"}}, nil},
		{"a miss above the trigger, and an extra", []int{2}, []float64{100, 600, 700, 200}, []int{-1, -1, 6, -1}, nil,
			nil, []point{{2, 3, 6, "simulated context passes the trigger; the walk chose another boundary"}}, []point{{6, 3, 2, ""}}},
		{"a rejected compaction is no boundary", []int{4}, []float64{100, 300, 700, 200}, []int{-1, -1, 4, -1}, map[int]bool{2: true},
			nil, []point{{4, 3, -1, "simulated context passes the trigger; the walk chose another boundary"}}, nil},
		{"no step after the last boundary", []int{8}, []float64{100, 200, 300, 400}, []int{-1, -1, -1, -1}, nil,
			nil, []point{{8, 0, -1, "no step between this boundary and the next"}}, nil},
		{"the largest context between two boundaries", []int{2, 6}, []float64{100, 450, 300, 200}, []int{-1, -1, -1, -1}, nil,
			nil, []point{{2, 2, -1, "simulated context stays at or below the trigger (500)"}, {6, 4, -1, "simulated context stays at or below the trigger (500)"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Nine messages: the last, a user message, follows the last step.
			in, msgs := recordedChat(9, tc.stored...)
			c := compareRecorded(in, msgs, steps(9, tc.ctx, tc.b, tc.reject), 1000, 500)
			check := func(kind string, got []RecordedPoint, want []point) {
				if len(got) != len(want) {
					t.Fatalf("%s: %+v, want %+v", kind, got, want)
				}
				for i, w := range want {
					g := got[i]
					if g.Message != w.message || g.Step != w.step || g.Nearest != w.nearest || g.Note != w.note || g.ID != msgs[w.message].ID {
						t.Errorf("%s %d: %+v, want %+v", kind, i, g, w)
					}
				}
			}
			check("matches", c.Matches, tc.matches)
			check("misses", c.Misses, tc.misses)
			check("extra", c.Extra, tc.extra)
			if c.Recorded != len(tc.stored) || c.Simulated != len(c.Matches)+len(c.Extra) || c.Messages != 9 || c.Steps != 4 {
				t.Errorf("counts %+v", c)
			}
			for _, m := range c.Matches {
				if m.RecordedChars != 100*(m.Message+1) || m.SimulatedChars == 0 || m.AfterTokens == 0 {
					t.Errorf("match without figures: %+v", m)
				}
			}
			if c.LiveUsedTokens == nil || *c.LiveUsedTokens != 9000 || c.LastStepContext != tc.ctx[3] {
				t.Errorf("live %v, last %v", c.LiveUsedTokens, c.LastStepContext)
			}
		})
	}
}

func TestWriteRecordedChat(t *testing.T) {
	in, msgs := recordedChat(8, 2)
	c := compareRecorded(in, msgs, steps(8, []float64{100, 600, 700, 200}, []int{-1, -1, 6, -1}, nil), 1000, 500)
	var b bytes.Buffer
	writeRecordedChat(&b, in, c)
	want := `chat chat1 "T"
m, context window 1,000, trigger above 500 tokens; 8 messages, 4 steps
recorded 1, simulated 1: 0 matches, 1 miss, 1 extra
       message  id  role  step  context  after  simulated  recorded  note
miss   2        m2  user  3     700      -      -          300       simulated context passes the trigger; the walk chose another boundary; nearest simulated boundary: message 6
extra  6        m6  user  3     700      350    502        -         nearest recorded boundary: message 2
last step: live usage 9,000 tokens, simulated context 200 (the live figure is 8,800 higher: system prompt, tools, output; try --system-overhead)
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestNearest(t *testing.T) {
	tests := []struct {
		xs   []int
		b    int
		want int
	}{
		{nil, 3, -1}, {[]int{1}, 9, 1}, {[]int{1, 5, 9}, 6, 5}, {[]int{2, 6}, 4, 2}, {[]int{10, 2}, 7, 10},
	}
	for _, tc := range tests {
		if got := nearest(tc.xs, tc.b); got != tc.want {
			t.Errorf("nearest(%v, %d) = %d, want %d", tc.xs, tc.b, got, tc.want)
		}
	}
}
