package briefing

import (
	"strconv"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// chainRound is the history one compaction of a long chain sees: the
// briefing of the round before, then a few new requests, each naming a
// file of its own.
func chainRound(prev string, round int) string {
	var b strings.Builder
	if prev != "" {
		b.WriteString("<previous-chat-history>" + prev + "</previous-chat-history>\n")
	}
	for j := range 3 {
		n := itoa(round*3 + j)
		b.WriteString("<user>Task " + n + ": tidy w1/src/mod" + n + ".ts and keep its API.</user>\n")
		b.WriteString("<assistant>Tidied it; the user decided to keep the old names.\n[edited: w1/src/mod" + n + ".ts (2 edits)]</assistant>\n")
	}
	return b.String()
}

// TestChainedBriefingsStayWithinTarget is the regression test of issue 14's
// small-window simulation: each compaction's briefing carries the one
// before, and the writer used to keep every previous section (shortened,
// never merged), so the briefing grew past the target with every
// compaction, without bound, and simulating a long history took time
// quadratic in its length. Every briefing of the chain must keep the
// target (its previous briefing did) and the rules, and the oldest
// sections end up counted in one "Earlier topics" digest that keeps the
// first topic and the count of every section merged.
func TestChainedBriefingsStayWithinTarget(t *testing.T) {
	const target, rounds = 3000, 120
	opts := Options{TargetChars: target}
	prev := ""
	for r := range rounds {
		compact := chainRound(prev, r)
		out := Write(compact, opts)
		for _, e := range ruleErrors(out, opts, history.Len16(prev)) {
			t.Fatalf("round %d: %s\n--- briefing ---\n%s", r, e, out)
		}
		if again := Write(compact, opts); again != out {
			t.Fatalf("round %d: two runs differ", r)
		}
		prev = out
	}
	if !strings.HasPrefix(prev, "## "+digestHeading+"\n\n"+digestLead) {
		t.Fatalf("no digest at the start of the last briefing:\n%s", prev)
	}
	// The digest counts every section merged since the first round and
	// names the first task; the sections after it are the newest.
	body := prev[len("## "+digestHeading+"\n\n"):strings.Index(prev, "\n\n## ")]
	n, first, last, ok := parseDigest(&prevSection{heading: digestHeading, body: body})
	if !ok || first != "Task 0: tidy mod0.ts and keep its API" || last == "" {
		t.Errorf("digest = %d sections, from %q to %q (ok %v); want from the first task:\n%s", n, first, last, ok, body)
	}
	if rest := strings.Count(prev, "\n## ") - 1; n+rest < rounds {
		t.Errorf("the digest counts %d sections and %d follow it: fewer than the %d briefings written", n, rest, rounds)
	}
	mustContain(t, prev, "[](path:w1/src/mod0.ts)", "Task "+strconv.Itoa(rounds*3-1))
}
