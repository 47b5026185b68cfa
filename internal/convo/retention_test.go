package convo

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/compactlab/compact/internal/mdtext"
	"github.com/compactlab/compact/internal/serialize"
	"github.com/compactlab/compact/internal/strategy"
)

// measureRetentionWhole is MeasureRetention as it was: the kept check of
// every item of the whole compact history at once (what one diff.Compare
// over it measured; slow on long histories).
func measureRetentionWhole(compacted []strategy.Message, summary string, profile *serialize.Profile) Retention {
	r := Retention{ByKind: map[mdtext.Kind]*KindCount{}, Lost: []mdtext.Item{}}
	for _, k := range RetentionKinds {
		r.ByKind[k] = &KindCount{}
	}
	if len(compacted) == 0 {
		return r
	}
	b := mdtext.NewBriefing(summary)
	var kept, lost []mdtext.Item
	for _, it := range mdtext.Needs(mdtext.ParseHistory(CompactHistory(compacted, "", profile))) {
		if b.Keeps(it) {
			kept = append(kept, it.Item)
		} else {
			lost = append(lost, it.Item)
		}
	}
	want := map[mdtext.Kind]bool{}
	for _, k := range RetentionKinds {
		want[k] = true
	}
	for _, it := range kept {
		if want[it.Kind] {
			r.Items++
			r.Kept++
			r.ByKind[it.Kind].Total++
			r.ByKind[it.Kind].Kept++
		}
	}
	for _, k := range RetentionKinds {
		for _, it := range lost {
			if it.Kind == k {
				r.Items++
				r.ByKind[k].Total++
				r.Lost = append(r.Lost, it)
			}
		}
	}
	return r
}

// mixedHistory repeats paths, links and failures across n turns, so that
// items recur in later pieces of the history.
func mixedHistory(n int) []strategy.Message {
	var out []strategy.Message
	for i := 0; i < n; i++ {
		id := fmt.Sprint(i)
		switch i % 4 {
		case 0:
			out = append(out, strategy.Message{ID: "u" + id, Role: strategy.RoleUser,
				Content: fmt.Sprintf("Look at w1/src/f%d.ts and [doc %d](https://example.com/d%d). Use tabs, not spaces.", i%13, i, i%7)})
		case 1:
			out = append(out, strategy.Message{ID: "a" + id, Role: strategy.RoleAssistant,
				Content: fmt.Sprintf("Checked [](path:w1/lib/g%d.go).", i%11),
				ToolCalls: []strategy.ToolCall{
					{ID: "c" + id, Name: "shell", Arguments: fmt.Sprintf(`{"command":"go test ./w1/pkg%d"}`, i%5)},
					{ID: "d" + id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"w1/src/f%d.ts"}`, i%17)},
				}})
		case 2:
			out = append(out, strategy.Message{ID: "t" + id, Role: strategy.RoleTool, ToolCallID: fmt.Sprintf("c%d", i-1),
				Content: fmt.Sprintf(`{"exit_code":%d}`, i%3)})
		case 3:
			out = append(out, strategy.Message{ID: "e" + id, Role: strategy.RoleTool, ToolCallID: fmt.Sprintf("d%d", i-2),
				Content: []string{"Error: no such file", "ok", "timed out after 30s"}[i%3]})
		}
	}
	return out
}

// TestMeasureRetentionInPiecesIsTheWhole: measuring the compact history
// in pieces (down to one turn a piece) gives what one kept check over
// the whole history gives, on the example histories, the sample
// database's chats (stagewise serializer, both profiles) and a history
// whose items recur.
func TestMeasureRetentionInPiecesIsTheWhole(t *testing.T) {
	type tcase struct {
		name string
		msgs []strategy.Message
	}
	var cases []tcase
	for _, f := range []string{"linear.jsonl", "branching.jsonl"} {
		h, err := ReadJSONLFile(filepath.Join("..", "..", "examples", "histories", f), JSONLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tcase{f + " branch", h.Branch}, tcase{f + " messages", h.Messages})
	}
	hs, _, err := ReadStagewise(context.Background(), sampleDB(t), StagewiseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		cases = append(cases, tcase{"chat " + h.Name, h.Branch})
	}
	cases = append(cases, tcase{"recurring items", mixedHistory(400)})
	summaries := []string{
		"",
		"## Task\n\nYou fixed [](path:w1/src/f1.ts) and w1/src/f3.ts after reading https://example.com/d2. The run of go test ./w1/pkg2 failed with exit 1; w1/lib/g4.go timed out.",
	}
	old := retentionChunk
	defer func() { retentionChunk = old }()
	for _, tc := range cases {
		for _, prof := range []*serialize.Profile{nil, serialize.Profiles["e3e"], serialize.Profiles["head"]} {
			for si, summary := range summaries {
				retentionChunk = old
				want := measureRetentionWhole(tc.msgs, summary, prof)
				if tc.name == "recurring items" && want.Items < 40 {
					t.Fatalf("%s: only %d items: the history should hold many", tc.name, want.Items)
				}
				for _, chunk := range []int{1, 100, 1000, old} {
					retentionChunk = chunk
					got := MeasureRetention(tc.msgs, summary, prof)
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("%s, profile %v, summary %d, pieces of %d bytes (-whole +pieces):\n%s", tc.name, prof != nil, si, chunk, d)
					}
				}
			}
		}
	}
}
