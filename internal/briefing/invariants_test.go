package briefing

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/history"
)

var (
	tagRe      = regexp.MustCompile(`<[A-Za-z/!?]`)
	numberedRe = regexp.MustCompile(`^\s*[0-9]{1,9}[.)][ \t]`)
	// An ATX heading as Markdown (and the rule checker) reads one.
	atxRe = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]|$)`)
)

// ruleErrors lists the output rules a briefing breaks (empty when none).
// prevLen is the previous briefing's size; the size target only binds when
// that alone is within it.
func ruleErrors(out string, opts Options, prevLen int) []string {
	var errs []string
	bad := func(s string) { errs = append(errs, s) }
	target := opts.TargetChars
	if target <= 0 {
		target = DefaultTargetChars
	}
	if !utf8.ValidString(out) {
		bad("not valid UTF-8")
	}
	if out != strings.TrimSpace(out) {
		bad("not trimmed")
	}
	if history.Len16(out) < MinChars {
		bad("shorter than MinChars")
	}
	if !strings.HasPrefix(out, "## ") {
		bad("does not start with a ## heading")
	}
	if loc := tagRe.FindStringIndex(out); loc != nil {
		bad("holds a tag: " + out[loc[0]:min(len(out), loc[0]+30)])
	}
	for _, ln := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(ln, "- "), strings.HasPrefix(ln, "* "):
			bad("bullet line: " + ln)
		case strings.HasPrefix(ln, "|"):
			bad("table line: " + ln)
		case strings.HasPrefix(ln, "```"):
			bad("code fence: " + ln)
		case atxRe.MatchString(ln) && !strings.HasPrefix(ln, "## "):
			bad("heading other than ##: " + ln)
		case numberedRe.MatchString(ln):
			bad("numbered list line: " + ln)
		case !strings.HasPrefix(ln, "## ") && linkAllMounts(ln) != ln:
			bad("plain path: " + ln)
		}
	}
	if profileFor(opts.Profile).workingState {
		const h = "\n## " + stateHeading + "\n\n"
		i := strings.LastIndex(out, h)
		if i < 0 && !strings.HasPrefix(out, h[1:]) {
			bad("no working-state section")
		} else {
			body := out[len(h)-1:]
			if i >= 0 {
				body = out[i+len(h):]
			}
			if strings.Contains(body, "\n") {
				bad("working state is not one paragraph")
			}
			if n := countSentences(body); n != 2 {
				bad("working state has " + itoa(n) + " sentences: " + body)
			}
			if strings.Count(out, "## "+stateHeading+"\n") != 1 {
				bad("more than one working-state heading")
			}
		}
	}
	if n := history.Len16(out); n > target && prevLen <= target {
		bad("size " + itoa(n) + " over the target " + itoa(target))
	}
	return errs
}

func itoa(n int) string {
	neg := n < 0
	if neg {
		n = -n
	}
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// prevOf returns the previous briefing inside a compact history, as the
// parser sees it.
func prevOf(compact string) string {
	p := parse(compact)
	return p.prev
}
