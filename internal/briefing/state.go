package briefing

import (
	"strings"

	"github.com/compactlab/compact/internal/history"
	"github.com/compactlab/compact/internal/mdtext"
)

// This file writes the ending: at e3e the "## Current working state" section
// of exactly two sentences, at head a status sentence for the last topic.
//
// The first sentence names the latest concrete action in the past tense: the
// last tool call, your last words, or the user's unanswered message. The
// second names one next step: the user's unanswered request, the last
// unresolved failure, or, only when the last turn is yours and nothing in it
// failed, waiting for the user.

const (
	stateNoTurns     = "The history you were given held no readable user or assistant turns."
	stateNoNewTurns  = "The history since the previous briefing held no new user or assistant turns."
	stateAskUser     = "Your next step is to ask the user what they want to work on next."
	stateFallbackA   = "You last worked on the conversation."
	stateFallbackB   = "Your next step is to ask the user how to continue."
	maxStateExcerpt  = 140
	maxStateSentence = 400 // UTF-16 units of a tool call's sentence repeated in the working state
	maxStateErrorMsg = 80
)

// ending is what the last turns say about where things stand.
type ending struct {
	a, b      string // the two working-state sentences
	status    string // head: the last topic's status
	prevState int    // index of the previous briefing's working state to reuse, or -1
}

// topicName is the current task's heading as a clause, or "" for the
// sections that have no request of their own.
func topicName(tk *task) string {
	if tk == nil {
		return ""
	}
	h := tk.heading
	for _, g := range []string{contHeading, beforeHeading, strayHeading} {
		if strings.HasPrefix(h, g) {
			return ""
		}
	}
	return clause(h, 80)
}

func onTopic(h string) string {
	if h == "" {
		return "the earlier work"
	}
	return "“" + h + "”"
}

func findEnding(tasks []*task, prev []prevSection, hasPrev bool) ending {
	e := ending{prevState: -1}
	var last *turn
	var lastTask *task
	var prior *turn // the last assistant turn before last, when last is a user turn
	for _, tk := range tasks {
		for _, t := range tk.turns {
			if t.role == roleOther {
				continue
			}
			if last != nil && last.role == roleAssistant {
				prior = last
			}
			last, lastTask = t, tk
		}
	}
	if last == nil {
		for i := len(prev) - 1; i >= 0; i-- {
			if prev[i].isState && len(sentences(flatten(prev[i].body))) == 2 && len(mdtext.SplitSentences(flatten(prev[i].body))) == 2 && !strings.Contains(prev[i].body, "\n#") {
				e.prevState = i
				e.a, e.b = "", flatten(prev[i].body)
				return e
			}
		}
		e.a, e.b = stateNoTurns, stateAskUser
		if hasPrev {
			e.a = stateNoNewTurns
		}
		return e
	}
	h := topicName(lastTask)
	if last.role == roleUser {
		if prior != nil {
			e.a = lastAction(prior)
		}
		words := userWords(last)
		if e.a == "" || !oneSentence(e.a) {
			switch {
			case words != "":
				e.a = "The last exchange was the user's message “" + clause(requestWords(words), maxStateExcerpt) + "”, which you had not answered yet."
			default:
				e.a = "The last exchange was a message from the user that you had not answered yet."
			}
		}
		switch {
		case len(last.slash) > 0 && words == "":
			e.b = "Your next step is to carry out the /" + clause(last.slash[len(last.slash)-1], 60) + " command the user invoked."
		case words != "" && isAck(words):
			e.b = "Your next step is to continue with " + onTopic(h) + ", as the user asked."
		case words != "" && isFeedback(words):
			e.b = "Your next step is to look into the user's report “" + clause(words, maxStateExcerpt) + "” and fix what still does not work."
		case words != "":
			first := requestWords(words)
			if endsWithQuestion(first) {
				e.b = "Your next step is to answer the user's question “" + clause(first, maxStateExcerpt) + "”."
			} else {
				e.b = "Your next step is to act on the user's request “" + clause(first, maxStateExcerpt) + "”."
			}
		default:
			e.b = "Your next step is to look at what the user attached or mentioned and ask what they want done with it."
		}
		e.status = "This topic was still open at the end of the conversation: the user's last message had not been answered yet."
	} else {
		e.a = lastAction(last)
		if f := lastFailure(last); f != nil {
			noun := clause(f.noun, maxStateExcerpt)
			if f.denied {
				e.b = "Your next step is to ask the user how to go on, since " + noun + " was denied."
			} else {
				e.b = "Your next step is to find out why " + noun + " failed and fix it."
				if msg := clause(f.errMsg, maxStateErrorMsg); msg != "" {
					if b := "Your next step is to find out why " + noun + " failed (" + msg + ") and fix it."; oneSentence(b) {
						e.b = b
					}
				}
			}
			e.status = "This topic was still open at the end of the conversation: " + noun + " had failed."
		} else if q := lastQuestion(last); q != "" {
			e.b = "You are waiting for the user to answer your question “" + q + "”."
			e.status = "At the end of the conversation you were waiting for the user to answer your question “" + q + "”."
		} else {
			e.b = "You are waiting for the user to review your work on " + onTopic(h) + " and give the next instruction."
			e.status = "At the end of the conversation your last reply on this topic was waiting for the user's response."
		}
	}
	if !oneSentence(e.a) {
		e.a = "You last worked on " + onTopic(h) + "."
		if !oneSentence(e.a) {
			e.a = stateFallbackA
		}
	}
	if !oneSentence(e.b) {
		e.b = "Your next step is to continue with " + onTopic(h) + "."
		if !oneSentence(e.b) {
			e.b = stateFallbackB
		}
	}
	if !oneSentence(e.status) {
		e.status = "This topic was still open at the end of the conversation."
	}
	return e
}

// lastAction is the past-tense sentence for a turn's last tool call, or its
// last words when it made none.
func lastAction(t *turn) string {
	for i := len(t.items) - 1; i >= 0; i-- {
		if ev := t.items[i].ev; ev != nil {
			// A call is told in one sentence, unless its label or message
			// is too long to repeat in the working state.
			for _, s := range []string{ev.full, ev.short} {
				if len(s) <= 4*maxStateSentence && history.Len16(s) <= maxStateSentence && oneSentence(s) {
					return s
				}
			}
			return ""
		}
	}
	for i := len(t.items) - 1; i >= 0; i-- {
		if w, _ := t.items[i].prose(false); w != "" {
			ss := sentences(w)
			return "You last told the user “" + clause(ss[len(ss)-1], maxStateExcerpt) + "”."
		}
	}
	return ""
}

// lastFailure is the turn's last failed call that no later success of the
// same call made good.
func lastFailure(t *turn) *event {
	for i := len(t.items) - 1; i >= 0; i-- {
		ev := t.items[i].ev
		if ev == nil || !ev.fail {
			continue
		}
		resolved := false
		for _, later := range t.items[i+1:] {
			if later.ev != nil && !later.ev.fail && later.ev.key == ev.key {
				resolved = true
				break
			}
		}
		if !resolved {
			return ev
		}
	}
	return nil
}

// lastQuestion is your question to the user when your turn ends on one.
func lastQuestion(t *turn) string {
	if len(t.items) == 0 || t.items[len(t.items)-1].ev != nil {
		return ""
	}
	w, _ := t.items[len(t.items)-1].prose(false)
	ss := sentences(w)
	if len(ss) == 0 {
		return ""
	}
	q := ss[len(ss)-1]
	if !strings.HasSuffix(strings.TrimRight(q, closers), "?") {
		return ""
	}
	return clause(q, maxStateExcerpt)
}

// requestWords are the user's words from the first sentence that is not
// small talk: "Looks good. Now add tests." gives "Now add tests.".
func requestWords(words string) string {
	ss := sentences(words)
	for i, s := range ss {
		if c := cleanTopic(s); c != "" && !isChatter(c) {
			if i == 0 {
				return words
			}
			return strings.Join(ss[i:], " ")
		}
	}
	return words
}

// endsWithQuestion reports whether the first sentence of s is a question.
func endsWithQuestion(s string) bool {
	ss := sentences(s)
	return len(ss) > 0 && strings.HasSuffix(strings.TrimRight(ss[0], closers), "?")
}
