package mdtext

import (
	"regexp"
	"strings"
)

// Decisions returns the sentences of one user turn that state a decision,
// a preference, a constraint or a rule: the text the prompt says to keep
// in the user's own terms.
//
// The heuristic, in order:
//  1. [attached: …] and [mentioned: …] lines and fenced code blocks (pasted
//     code or logs) are left out; the rest is split into sentences as
//     Sentences does.
//  2. A sentence that ends with '?' is a question, not a decision; one
//     longer than 400 characters is taken for pasted text. Both are left
//     out.
//  3. A sentence is a decision when it holds one of these cues (case does
//     not matter):
//     - anywhere: must, never, always, should, shouldn't, ought to, prefer /
//     prefers / preferred, rather than, instead, avoid, make sure, ensure,
//     from now on, going forward, "you/we need to", "you/we have to", "I/we
//     don't want/like/need/use", "we don't", or a contrast ", not X" ("2px,
//     not 3px");
//     - at the start of a clause (the start of the sentence, or after
//     , ; : ( or a dash, or after and / but / so / then), optionally after
//     please, just, also, let's, we'll or I'd: an imperative don't / do
//     not, use, keep, only, ignore, skip, stop, leave, stick, go with, or "no X"
//     ("No bullets.", but not "no problem", "no worries", "no idea", "no
//     thanks" or "No," as an answer).
//
// The clause-start rule keeps descriptions out: "I keep getting this
// error", "it only fails on CI", "I don't see any", "the app doesn't
// follow". Known misses: bare approvals ("Update the snapshot,
// that's expected.", "Yes, go ahead."); known false positives: statements
// of fact with never/always ("the job never finishes"). decisions_test.go
// holds the test set.
func Decisions(userText string) []string {
	var kept []string
	fence := ""
	for _, line := range strings.Split(userText, "\n") {
		t := strings.TrimSpace(line)
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" || strings.HasPrefix(t, "[attached: ") || strings.HasPrefix(t, "[mentioned: ") {
			kept = append(kept, "")
			continue
		}
		kept = append(kept, line)
	}
	var out []string
	for _, s := range Sentences(strings.Join(kept, "\n")) {
		s = strings.TrimLeft(s, "-*+ ")
		if IsDecision(s) {
			out = append(out, s)
		}
	}
	return out
}

var (
	decisionAnywhereRe = regexp.MustCompile(`(?i)\b(?:must|never|always|should|shouldn['’]?t|ought to|prefer|prefers|preferred|rather than|instead|avoid|make sure|ensure|from now on|going forward|(?:you|we) (?:need|have) to|(?:i|we) (?:don['’]?t|do not) (?:want|like|need|use)|we (?:don['’]?t|do not))\b|,\s*not\s+\S`)
	// decisionClauseRe matches the start of a clause and the filler words
	// that may precede an imperative.
	decisionClauseRe = regexp.MustCompile(`(?i)(?:^|[,;:(—–]\s*|\s-\s+|\b(?:and|but|so|then)\s+)(?:(?:please|pls|just|also|and|but|so|then|let['’]?s|let us|we['’]ll|we will|i['’]d)\s+)*`)
	clauseCues       = map[string]bool{"use": true, "keep": true, "only": true, "ignore": true, "stop": true, "leave": true, "stick": true, "skip": true, "dont": true}
	notNoCues        = map[string]bool{"problem": true, "problems": true, "worries": true, "idea": true, "thanks": true, "luck": true, "rush": true}
)

// IsDecision applies steps 2 and 3 of the Decisions heuristic to one
// sentence.
func IsDecision(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, "?") || len(s) > 400 {
		return false
	}
	if !mayBeDecision(s) {
		return false
	}
	return isDecisionRe(s)
}

// isDecisionRe is IsDecision without the word prefilter.
func isDecisionRe(s string) bool {
	if decisionAnywhereRe.MatchString(s) {
		return true
	}
	for _, m := range decisionClauseRe.FindAllStringIndex(s, -1) {
		w1, sep, w2 := twoWords(s[m[1]:])
		switch {
		case clauseCues[w1]:
			return true
		case w1 == "don" && (sep == '\'' || sep == 0xe2): // don't, don’t
			return true
		case w1 == "do" && w2 == "not":
			return true
		case w1 == "go" && w2 == "with":
			return true
		case w1 == "no" && sep == ' ' && w2 != "" && !notNoCues[w2]:
			return true
		}
	}
	return false
}

// twoWords returns the first two words of s in lower case (letters only)
// and the byte that follows the first.
func twoWords(s string) (w1 string, sep byte, w2 string) {
	word := func(s string) (string, string) {
		i := 0
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
			i++
		}
		return strings.ToLower(s[:i]), s[i:]
	}
	w1, rest := word(s)
	if rest != "" {
		sep = rest[0]
	}
	if sep == ' ' {
		w2, _ = word(strings.TrimLeft(rest, " "))
	}
	return w1, sep, w2
}

// decisionWords are the words a cue of IsDecision starts with (lower
// case): a sentence with none of them, as a whole run of ASCII letters,
// matches no cue.
var decisionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields("must never always should shouldn shouldnt ought prefer prefers preferred rather instead avoid make ensure from going need have don dont do not use keep only ignore stop leave stick skip go no") {
		decisionWords[w] = true
	}
}

// mayBeDecision is false when s holds no word of decisionWords: a cheap
// test before the regular expressions. A sentence with a byte outside
// ASCII may hold a letter that folds to an ASCII one (ſ, K) or a curly
// apostrophe: the regular expressions decide.
func mayBeDecision(s string) bool {
	letter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	var buf [16]byte
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if !letter(c) {
			i++
			continue
		}
		j := i
		for j < len(s) && letter(s[j]) {
			j++
		}
		if w := s[i:j]; len(w) <= len(buf) {
			b := buf[:len(w)]
			for k := range w {
				b[k] = w[k] | 0x20
			}
			if decisionWords[string(b)] {
				return true
			}
		}
		i = j
	}
	return false
}
