package fakebatch

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/compactlab/compact/internal/eval"
)

var (
	judgeQuestion = regexp.MustCompile(`(?m)^Q(\d+)[ :]`)
	judgeSet      = regexp.MustCompile(`(?m)^Answer set ([A-Z]+):`)
)

// JudgeAnswer answers the prompts of compact's built-in judge pack as a
// judge that reads them would: a "Qn: …" line per question for an answer
// call, one JSON line of grades (every grade 4) per answer for a grade
// call. ok is false for any other prompt.
func JudgeAnswer(system, user string) (text string, ok bool) {
	pack := eval.DefaultJudgePack()
	var b strings.Builder
	switch system {
	case pack.AnswerSystem:
		qs := user
		if i := strings.Index(user, "</briefing>"); i >= 0 {
			qs = user[i:]
		}
		for _, q := range judgeQuestion.FindAllStringSubmatch(qs, -1) {
			fmt.Fprintf(&b, "Q%s: as the briefing says.\n", q[1])
		}
	case pack.GradeSystem:
		head := user
		if i := strings.Index(user, "Answer set A:"); i >= 0 {
			head = user[:i]
		}
		n := len(judgeQuestion.FindAllString(head, -1))
		for _, set := range judgeSet.FindAllStringSubmatch(user, -1) {
			for q := 1; q <= n; q++ {
				fmt.Fprintf(&b, `{"q": %d, "set": "%s", "accuracy": 4, "context_awareness": 4, "artifact_trail": 4, "completeness": 4, "continuity": 4, "instruction_following": 4}`+"\n", q, set[1])
			}
		}
	default:
		return "", false
	}
	return b.String(), true
}
