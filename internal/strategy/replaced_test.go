package strategy

import (
	"context"
	"fmt"
	"testing"
)

// TestReplacedListsWhatWasTakenOut: sliding-window and the strategies
// that rewrite tool results (selective-prune, observation-masking,
// tool-clearing, the pruning of prune-summarize and the masking of
// mask-then-summarize) name the messages each kept compaction dropped or
// rewrote (Replaced), the driver clears them on a compaction it undoes,
// and a compaction that summarizes leaves Replaced nil.
func TestReplacedListsWhatWasTakenOut(t *testing.T) {
	var h []Message
	h = append(h, sysm("s", "system prompt"))
	for i := 0; i < 12; i++ {
		id := fmt.Sprint(i)
		h = append(h, usr("u"+id, "please look at this "+chars(200)),
			asst("a"+id, "reading", call("c"+id, "read", `{"path":"w1/f`+id+`.ts"}`)),
			tool("t"+id, "c"+id, chars(900)),
			asst("b"+id, "done "+chars(100)))
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			tl, err := Simulate(context.Background(), h, name, Config{ContextWindow: 2000, Reserved: 1, RecentBuffer: 2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			replacing := name == NameSlidingWindow || Rewrites[name] != nil
			kept := 0
			seen := map[int]bool{}
			for _, s := range tl.Steps {
				if s.Rejected != "" || s.Compacted == 0 || !replacing || s.Summary != "" {
					if s.Replaced != nil {
						t.Errorf("step %d (rejected %q, %d compacted): replaced %v", s.Step, s.Rejected, s.Compacted, s.Replaced)
					}
					continue
				}
				kept++
				if len(s.Replaced) != s.Compacted {
					t.Errorf("step %d: %d compacted, replaced %v", s.Step, s.Compacted, s.Replaced)
				}
				for k, m := range s.Replaced {
					if m > s.Index || seen[m] || (k > 0 && m <= s.Replaced[k-1]) || h[m].Role == RoleSystem {
						t.Errorf("step %d (message %d): replaced %v", s.Step, s.Index, s.Replaced)
						break
					}
					if Rewrites[name] != nil && h[m].Role != RoleTool {
						t.Errorf("step %d: prune replaced %s message %d", s.Step, h[m].Role, m)
					}
					seen[m] = true
				}
			}
			if replacing && kept == 0 && name != NamePruneSummarize {
				t.Errorf("no compaction kept: the test proves nothing")
			}
		})
	}
}
