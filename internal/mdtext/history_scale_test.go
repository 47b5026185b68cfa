package mdtext

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestParseHistoryIsLinear: parsing a long compact history reads each user
// turn once. It once searched for a <slash-command> block to the end of
// the whole history from every turn: quadratic, minutes on a 200,000
// message chain. 40,000 turns (about 4 MB) now parse in milliseconds; the
// bound is generous.
func TestParseHistoryIsLinear(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "<user>Step %d: fix w1/src/file%d.ts please.</user>\n<assistant>[edit: w1/src/file%d.ts]\nDone.</assistant>\n", i, i, i)
	}
	start := time.Now()
	h := ParseHistory(b.String())
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("40,000 turns took %v", d)
	}
	if len(h.Turns) != 80000 || h.Turns[79998].Text != "Step 39999: fix w1/src/file39999.ts please." {
		t.Errorf("%d turns, want 80000", len(h.Turns))
	}
}
