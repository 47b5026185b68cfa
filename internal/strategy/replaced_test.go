package strategy

import (
	"context"
	"fmt"
	"testing"
)

// TestReplacedListsWhatWasTakenOut: sliding-window and selective-prune
// name the messages each kept compaction dropped or rewrote (Replaced),
// the driver clears them on a compaction it undoes, and the strategies
// that summarize leave Replaced nil.
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
			replacing := name == NameSlidingWindow || name == NameSelectivePrune
			kept := 0
			seen := map[int]bool{}
			for _, s := range tl.Steps {
				if s.Rejected != "" || s.Compacted == 0 || !replacing {
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
					if name == NameSelectivePrune && h[m].Role != RoleTool {
						t.Errorf("step %d: prune replaced %s message %d", s.Step, h[m].Role, m)
					}
					seen[m] = true
				}
			}
			if replacing && kept == 0 {
				t.Errorf("no compaction kept: the test proves nothing")
			}
		})
	}
}
