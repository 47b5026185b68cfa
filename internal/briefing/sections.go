package briefing

import (
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/mdtext"
)

// This file groups the turns into tasks, one ## section each, and writes a
// section at one of four levels of detail.

const (
	contHeading   = "Continuing the earlier work"
	beforeHeading = "Before the first request"
	strayHeading  = "Text outside any turn"
	mergedHeading = "Earlier requests"
	maxPlanOpen   = 5
)

// task is a user request with everything that followed it, up to the next
// request.
type task struct {
	heading string
	turns   []*turn
	cache   [len(details)]string
	have    [len(details)]bool

	// capBytes, when set, stops a render below the last level as soon as
	// it is that long: it cannot fit, and a huge task is not written out
	// in full only to learn so. over marks the renders that were stopped.
	capBytes int
	over     [len(details)]bool
}

// compactLevel is the first level that tells a section in one paragraph.
const compactLevel = 3

// detail is one level of detail for a task section.
type detail struct {
	userSent, userChars   int  // the user's words: sentences and units kept (0: all)
	proseSent, proseChars int  // each prose block of yours; proseSent < 0 drops prose
	firstProseOnly        bool // keep only the first prose block of a turn
	groupTurn             bool // one sentence per kind of successful call in a turn
	compact               bool // one paragraph: request, failures, answers, files named
	plans                 bool // report checklists item by item
	maxPaths              int  // compact: files named
	maxFails, maxAsks     int  // compact: failures and answered forms told (the latest)
	maxKeys               int  // the user's key sentences beyond the excerpts (the latest)
	minimal               bool // compact, without your last words or the count of other calls
}

// details runs from full (0) to the most condensed (5). Paths, the user's
// answers and failures are kept at every level but the last two, which are
// only used when nothing else makes the briefing fit; at the last the
// section names no files (the files section names them) and only the
// latest failures and decisions.
var details = [...]detail{
	{userSent: 0, userChars: 0, proseSent: 3, proseChars: 600, plans: true},
	{userSent: 4, userChars: 800, proseSent: 1, proseChars: 300, plans: true, maxKeys: 8},
	{userSent: 2, userChars: 300, proseSent: 1, proseChars: 200, firstProseOnly: true, groupTurn: true, maxKeys: 8},
	{userSent: 1, userChars: 160, proseSent: -1, firstProseOnly: true, groupTurn: true, compact: true, maxPaths: 40, maxFails: 8, maxAsks: 5, maxKeys: 6},
	{userSent: 1, userChars: 120, proseSent: -1, firstProseOnly: true, groupTurn: true, compact: true, maxPaths: 12, maxFails: 3, maxAsks: 2, maxKeys: 3},
	{userSent: 1, userChars: 100, proseSent: -1, firstProseOnly: true, groupTurn: true, compact: true, minimal: true, maxFails: 2, maxAsks: 1, maxKeys: 2},
}

// ackWords are the words a short acknowledgement is made of; a user turn of
// at most four of them continues the current task.
var ackWords = map[string]bool{
	"ok": true, "okay": true, "k": true, "kk": true, "yes": true, "yep": true, "yeah": true, "y": true,
	"sure": true, "continue": true, "go": true, "on": true, "ahead": true, "proceed": true, "next": true,
	"more": true, "even": true, "thanks": true, "thank": true, "you": true, "thx": true, "ty": true,
	"great": true, "good": true, "fine": true, "cool": true, "nice": true, "perfect": true, "lgtm": true,
	"looks": true, "do": true, "it": true, "please": true, "carry": true, "keep": true, "going": true,
	"alright": true, "right": true, "sounds": true, "correct": true, "again": true, "and": true,
	"no": true, "nope": true, "approved": true, "agreed": true, "done": true, "cheers": true,
}

func isAck(text string) bool {
	t := strings.TrimSpace(text)
	if t == "" || len(t) > 40 {
		return false
	}
	t = strings.ToLower(t)
	words := strings.FieldsFunc(t, func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	})
	if len(words) == 0 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if !ackWords[w] {
			return false
		}
	}
	// Nothing but letters, spaces and light punctuation.
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || strings.ContainsRune(" ,.!'-", r)) {
			return false
		}
	}
	return true
}

// hasPrefixFold and hasSuffixFold compare with an ASCII affix, ignoring
// ASCII case, without lower-casing the whole text.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && asciiEqualFold(s[:len(prefix)], prefix)
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && asciiEqualFold(s[len(s)-len(suffix):], suffix)
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// stripLinks replaces markdown links by their label, or by their target
// without its scheme when the label is empty.
func stripLinks(s string) string {
	return replaceLinks(s, looseLinkLen, func(l string) string {
		close := strings.Index(l, "](")
		label, target := l[1:close], l[close+2:len(l)-1]
		if label == "" {
			if c := strings.IndexByte(target, ':'); c >= 0 {
				target = target[c+1:]
			}
			label = target
		}
		return label
	})
}

// replaceLinks replaces each link of s, as linkLen measures one at a "[",
// by what with gives for it.
func replaceLinks(s string, linkLen func(string) int, with func(link string) string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		b.WriteString(s[i : i+j])
		i += j
		if n := linkLen(s[i:]); n > 0 {
			b.WriteString(with(s[i : i+n]))
			i += n
			continue
		}
		b.WriteByte('[')
		i++
	}
	return b.String()
}

// slashLinks undoes the serializer's doubling of a command label: the user
// typed /build, the history shows //build.
func slashLinks(s string) string {
	if !strings.Contains(s, "//") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && i+2 < len(s) && s[i+1] == '/' && s[i+2] != '/' && !isSpaceByte(s[i+2]) &&
			(i == 0 || isSpaceByte(s[i-1]) || s[i-1] == '(') {
			b.WriteByte('/')
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// userWords is the user's text ready to quote: one line, links kept, plain
// paths linked, command labels as typed.
func userWords(t *turn) string {
	if !t.wordsDone {
		t.words, t.wordsDone = flatten(linkify(slashLinks(t.text))), true
	}
	return t.words
}

func slashSentence(names []string, withText bool) string {
	var u []string
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			u = append(u, "/"+n)
		}
	}
	tail := " was invoked."
	if withText {
		tail = " was invoked with this message."
	}
	if len(u) == 1 {
		return "The " + u[0] + " command" + tail
	}
	return "The " + joinList(u) + " commands" + strings.Replace(tail, "was", "were", 1)
}

func attachSentence(names []string) string {
	if len(names) == 0 {
		return "The user attached a file whose name was not recorded."
	}
	return "The user attached " + joinList(names) + "."
}

func mentionSentence(labels []string) string {
	if len(labels) == 0 {
		return "The user mentioned something whose name was not recorded."
	}
	out := make([]string, len(labels))
	for i, l := range labels {
		if isMentionPath(l) {
			out[i] = mdtext.PathLink(l)
		} else {
			out[i] = l
		}
	}
	return "The user mentioned " + joinList(out) + "."
}

func isMentionPath(l string) bool {
	return strings.IndexByte(l, '/') > 0 && !strings.ContainsAny(l, " \t") && !strings.Contains(l, "://")
}

// userPara tells one user turn.
func userPara(t *turn, first bool, d detail) string {
	var ss []string
	words := userWords(t)
	if words != "" {
		lead := "The user wrote: "
		if !first {
			lead = "The user then wrote: "
		}
		shown := excerpt(words, d.userSent, d.userChars)
		ss = append(ss, lead+quote(shown))
		if d.maxKeys > 0 && !d.compact {
			if keys := lastN(keysBeyond(t, shown), d.maxKeys); len(keys) > 0 {
				ss = append(ss, "The user also wrote: "+quoteKeys(keys))
			}
		}
	}
	if len(t.slash) > 0 {
		ss = append(ss, slashSentence(t.slash, words != ""))
	}
	if t.hasAttached && !d.compact {
		ss = append(ss, attachSentence(t.attached))
	}
	if t.hasMention && !d.compact {
		ss = append(ss, mentionSentence(t.mentioned))
	}
	// Attachment names and mention labels are the user's; a path in one
	// is linked too.
	return linkAllMounts(strings.Join(ss, " "))
}

// prose is an assistant prose block's words and the sentence on any
// checklist it holds, with or without the open items.
func (it *item) prose(withItems bool) (words, plan string) {
	if !it.done {
		it.words, it.planFull, it.planShort = prose(it.text)
		it.done = true
	}
	if withItems {
		return it.words, it.planFull
	}
	return it.words, it.planShort
}

func prose(text string) (words, planFull, planShort string) {
	if !strings.Contains(text, "[") {
		return flatten(linkify(text)), "", ""
	}
	var keep []string
	var open []string
	total, ticked := 0, 0
	for _, ln := range strings.Split(text, "\n") {
		t := stripListMarker(strings.TrimSpace(ln))
		if len(t) >= 4 && t[0] == '[' && t[2] == ']' && t[3] == ' ' && (t[1] == ' ' || t[1] == 'x' || t[1] == 'X') {
			total++
			if t[1] == ' ' {
				open = append(open, clause(t[4:], 80))
			} else {
				ticked++
			}
			continue
		}
		keep = append(keep, ln)
	}
	words = flatten(linkify(strings.Join(keep, "\n")))
	switch {
	case total == 0:
	case ticked == total:
		planFull = "Your plan had all " + strconv.Itoa(total) + " items ticked off."
		planShort = planFull
	default:
		planShort = "Your plan had " + strconv.Itoa(ticked) + " of " + strconv.Itoa(total) + " items ticked off"
		if len(open) > maxPlanOpen {
			open = append(open[:maxPlanOpen], "…")
		}
		planFull = planShort + "; still open: " + linkify(strings.Join(open, "; ")) + "."
		planShort += "."
	}
	return words, planFull, planShort
}

// asstPara tells one assistant turn.
func asstPara(t *turn, d detail, capBytes int) string {
	var ss []string
	size := 0
	var gVerb string
	var gObjs []string
	flushGroup := func() {
		if gVerb != "" {
			ss = append(ss, "You "+gVerb+" "+joinList(gObjs)+".")
		}
		gVerb, gObjs = "", nil
	}
	// Per-turn groups (groupTurn): objects by verb, in order of first use.
	var order []string
	byVerb := map[string][]string{}
	blocks := 0
	for k := range t.items {
		it := &t.items[k]
		if ev := it.ev; ev != nil {
			if ev.group != "" && !ev.fail {
				if d.groupTurn {
					if _, ok := byVerb[ev.group]; !ok {
						order = append(order, ev.group)
					}
					if !contains(byVerb[ev.group], ev.object) {
						byVerb[ev.group] = append(byVerb[ev.group], ev.object)
					}
					continue
				}
				if ev.group != gVerb {
					flushGroup()
					gVerb = ev.group
				}
				gObjs = append(gObjs, ev.object)
				continue
			}
			flushGroup()
			ss = append(ss, ev.full)
			if size += len(ev.full) + 1; capBytes > 0 && size > capBytes {
				break
			}
			continue
		}
		words, plan := it.prose(d.plans)
		if words != "" && d.proseSent >= 0 && !(d.firstProseOnly && blocks > 0) {
			flushGroup()
			lead := "You said: "
			if len(ss) > 0 || blocks > 0 {
				lead = "You then said: "
			}
			ss = append(ss, lead+quote(excerpt(words, d.proseSent, d.proseChars)))
		}
		if words != "" {
			blocks++
		}
		if plan != "" {
			flushGroup()
			ss = append(ss, plan)
		}
	}
	flushGroup()
	for _, v := range order {
		ss = append(ss, "You "+v+" "+joinList(byVerb[v])+".")
	}
	return strings.Join(ss, " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func strayPara(t *turn, d detail) string {
	w := flatten(linkify(t.text))
	if d.compact {
		return ""
	}
	return "The history also held text outside any turn: " + quote(excerpt(w, d.userSent, d.userChars))
}

// render writes the section at a level of detail, caching the result.
func (tk *task) render(level int) string {
	if level >= len(details) {
		level = len(details) - 1
	}
	if tk.have[level] {
		return tk.cache[level]
	}
	d := details[level]
	var paras []string
	if d.compact {
		paras = []string{tk.compactPara(d)}
	} else {
		firstUser := true
		size, capBytes := 0, 0
		if level < len(details)-1 {
			capBytes = tk.capBytes
		}
		for _, t := range tk.turns {
			var p string
			switch t.role {
			case roleUser:
				p = userPara(t, firstUser, d)
				firstUser = false
			case roleAssistant:
				p = asstPara(t, d, capBytes)
			default:
				p = strayPara(t, d)
			}
			if p != "" {
				paras = append(paras, p)
			}
			if size += len(p) + 2; capBytes > 0 && size > capBytes {
				tk.over[level] = true
				break
			}
		}
	}
	s := "## " + tk.heading
	if body := strings.TrimSpace(strings.Join(paras, "\n\n")); body != "" {
		s += "\n\n" + body
	}
	tk.cache[level], tk.have[level] = s, true
	return s
}

// compactPara is the most condensed form of a section: the request, the
// user's decisions and exact values, the user's last words, the files
// named, the commands, failures (and whether a later attempt made them
// good) and the user's answers, in one paragraph.
func (tk *task) compactPara(d detail) string {
	var ss []string
	var fails, asks []*event
	var paths, keys, attached, ids []string
	seen := map[string]bool{}
	addPath := func(p string) {
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	others := 0
	lastWords := ""
	var first, last *turn
	for _, t := range tk.turns {
		switch t.role {
		case roleUser:
			if first == nil {
				first = t
				if p := userPara(t, true, d); p != "" {
					ss = append(ss, p)
				}
				keys = append(keys, keysBeyond(t, excerpt(userWords(t), d.userSent, d.userChars))...)
			} else {
				last = t
			}
			attached = append(attached, t.attached...)
			for _, m := range t.mentioned {
				if isMentionPath(m) {
					addPath(m)
				}
			}
		case roleAssistant:
			for k := range t.items {
				it := &t.items[k]
				ev := it.ev
				if ev == nil {
					if w, _ := it.prose(false); w != "" {
						lastWords = w
						ids = append(ids, errorIDs(w)...)
					}
					continue
				}
				switch {
				case ev.fail:
					fails = append(fails, ev)
				case ev.decision:
					asks = append(asks, ev)
				case len(ev.paths) > 0:
					for _, p := range ev.paths {
						addPath(p)
					}
				default:
					others++
				}
			}
		}
	}
	lastShown := ""
	for _, t := range tk.turns {
		if t.role == roleUser && t != first {
			if t == last {
				lastShown = excerpt(userWords(t), d.userSent, d.userChars)
				keys = append(keys, keysBeyond(t, lastShown)...)
			} else {
				keys = append(keys, t.keySentences()...)
			}
		}
	}
	if keys = lastN(dedupe(keys), d.maxKeys); len(keys) > 0 {
		ss = append(ss, "The user also wrote: "+quoteKeys(keys))
	}
	if lastShown != "" {
		ss = append(ss, "The user last wrote: "+quote(lastShown))
	}
	if attached = dedupe(attached); len(attached) > 0 {
		ss = append(ss, linkAllMounts(attachSentence(attached)))
	}
	if len(paths) > 0 && d.maxPaths > 0 {
		ls := make([]string, 0, min(len(paths), d.maxPaths))
		for _, p := range paths[:min(len(paths), d.maxPaths)] {
			ls = append(ls, mdtext.PathLink(p))
		}
		s := "You worked with " + joinList(ls)
		if n := len(paths) - len(ls); n > 0 {
			s = "You worked with " + strings.Join(ls, ", ") + " and " + strconv.Itoa(n) + " more files or folders"
		}
		ss = append(ss, s+".")
	}
	if others > 0 && !d.minimal {
		ss = append(ss, "You also made "+count(others, "other tool call")+".")
	}
	if n := len(asks) - d.maxAsks; n > 0 {
		ss = append(ss, "You asked the user "+count(n, "earlier question")+" as well.")
		asks = latestAsks(asks, d.maxAsks)
	}
	for _, ev := range asks {
		ss = append(ss, ev.full)
	}
	fails = lastFailures(fails)
	if n := len(fails) - d.maxFails; n > 0 {
		ss = append(ss, count(n, "earlier call")+" failed.")
		fails = fails[n:]
	}
	for _, ev := range fails {
		ss = append(ss, ev.told())
	}
	if lastWords != "" && !d.minimal {
		ss = append(ss, "You last said: "+quote(excerpt(lastWords, 1, 160)))
	}
	if ids = newIDs(dedupe(ids), strings.Join(ss, " ")); len(ids) > 0 {
		ss = append(ss, errorsSentence(lastN(ids, d.maxFails)))
	}
	if len(ss) == 0 {
		return ""
	}
	return strings.Join(ss, " ")
}

// latestAsks keeps the n latest forms, the answered ones first: a form
// cancelled or left empty carries no decision.
func latestAsks(asks []*event, n int) []*event {
	keep := map[*event]bool{}
	for _, answered := range []bool{true, false} {
		for i := len(asks) - 1; i >= 0 && len(keep) < n; i-- {
			if asks[i].answered == answered {
				keep[asks[i]] = true
			}
		}
	}
	out := make([]*event, 0, n)
	for _, ev := range asks {
		if keep[ev] {
			out = append(out, ev)
		}
	}
	return out
}

// lastN keeps the last n items.
func lastN(items []string, n int) []string {
	if len(items) > n {
		return items[len(items)-n:]
	}
	return items
}

// dedupe keeps the first of equal items.
func dedupe(items []string) []string {
	if len(items) < 2 {
		return items
	}
	seen := map[string]bool{}
	out := items[:0:0]
	for _, it := range items {
		if !seen[it] {
			seen[it] = true
			out = append(out, it)
		}
	}
	return out
}

// lastFailures keeps, of failures of the same call, the last one.
func lastFailures(fails []*event) []*event {
	if len(fails) < 2 {
		return fails
	}
	lastAt := map[string]int{}
	for i, ev := range fails {
		lastAt[ev.key] = i
	}
	out := fails[:0:0]
	for i, ev := range fails {
		if lastAt[ev.key] == i {
			out = append(out, ev)
		}
	}
	return out
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// merged stands for the oldest tasks when even their condensed sections do
// not fit: the first and last request, then the user's latest decisions
// and exact values, answered forms and failed calls (and whether a later
// attempt made them good), error identifiers that came up in your words.
// Their files are left to the files section
// (trail.go), which names each path once.
func merged(tasks []*task, keys []string, asks, fails []*event, ids []string, maxFails, allFails int) string {
	var b strings.Builder
	b.WriteString("## " + mergedHeading + "\n\n")
	b.WriteString("Before the sections below, the user made " + count(len(tasks), "further request") +
		", from “" + clause(tasks[0].heading, 80) + "” to “" + clause(tasks[len(tasks)-1].heading, 80) + "”.")
	if len(keys) > 0 {
		b.WriteString(" The user wrote: " + quoteKeys(keys))
	}
	for _, ev := range asks {
		b.WriteString(" " + ev.full)
	}
	if len(fails) > maxFails {
		fails = fails[len(fails)-maxFails:]
	}
	switch {
	case allFails == 0:
	case len(fails) == allFails:
	case len(fails) > 0:
		b.WriteString(" " + count(allFails, "tool call") + " failed in them, the last " + count(len(fails), "call") + " as follows.")
	default:
		b.WriteString(" " + count(allFails, "tool call") + " failed in them.")
	}
	for _, ev := range fails {
		b.WriteString(" " + ev.told())
	}
	if ids = newIDs(ids, b.String()); len(ids) > 0 {
		b.WriteString(" " + errorsSentence(ids))
	}
	return linkAllMounts(b.String())
}
