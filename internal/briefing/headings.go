package briefing

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file groups the turns into tasks and names each task's section.
//
// A heading names the topic of the work: the user's request in the user's
// own words, shortened to a complete phrase. Small talk ("Looks good.",
// "Thanks!"), context lines ("Context: …") and reports that something did
// not work are not topics: the heading comes from the first sentence that
// is a request. A turn that only acknowledges or reports a failure
// continues the current task instead of opening one. When the user's words
// name no topic at all, the heading names the command invoked, the file
// attached or mentioned, or the files the task worked on.

// startsTask: a user turn with its own words or a command starts a task;
// acknowledgements, reports that the last attempt did not work and bare
// attachments continue the current one.
func startsTask(t *turn) bool {
	if t.role != roleUser {
		return false
	}
	if len(t.slash) > 0 {
		return true
	}
	txt := strings.TrimSpace(t.text)
	return txt != "" && !isAck(txt) && !isFeedback(txt)
}

func groupTasks(turns []turn, hasPrev bool, used *headingSet) []*task {
	var tasks []*task
	var cur *task
	for i := range turns {
		t := &turns[i]
		if t.empty() {
			continue
		}
		if starts := startsTask(t); cur == nil || starts {
			cur = &task{}
			switch {
			case starts || t.role == roleUser && !hasPrev:
				// named below, once the task's turns are known
			case hasPrev:
				cur.heading = contHeading
			case t.role == roleAssistant:
				cur.heading = beforeHeading
			default:
				cur.heading = strayHeading
			}
			tasks = append(tasks, cur)
		}
		cur.turns = append(cur.turns, t)
	}
	for _, tk := range tasks {
		if tk.heading == "" {
			tk.heading = headingFor(tk)
		}
		tk.heading = used.unique(tk.heading)
	}
	return tasks
}

const (
	maxHeadingUnits  = 60
	maxHeadingSource = 600 // bytes of the user's words a heading is made from
	maxHeadingSents  = 6   // sentences looked at for a request
	maxHeadingFiles  = 2   // files a heading made from the work names
	convHeading      = "Continuing the conversation"
)

// headingFor names a task that a user turn opened.
func headingFor(tk *task) string {
	t := tk.turns[0]
	if h := topicOf(t.text); h != "" {
		return h
	}
	h := ""
	switch {
	case len(t.slash) > 0:
		h = "The /" + t.slash[0] + " command"
	case len(t.attached) > 0:
		h = "The attached " + baseName(t.attached[0])
	case len(t.mentioned) > 0:
		h = "About " + baseName(t.mentioned[0])
	default:
		files, more := tk.fileNames(maxHeadingFiles)
		switch {
		case len(files) == 0:
			return convHeading
		case more > 0:
			h = "Work on " + strings.Join(files, ", ") + " and " + count(more, "more file")
		default:
			h = "Work on " + joinList(files)
		}
	}
	if h = shortHeading(h); h == "" {
		return convHeading
	}
	return h
}

// fileNames lists the base names of the first n files the task named, and
// how many more there are.
func (tk *task) fileNames(n int) (names []string, more int) {
	seen := map[string]bool{}
	add := func(p string) {
		b := baseName(p)
		if b == "" || seen[b] {
			return
		}
		seen[b] = true
		if len(names) < n {
			names = append(names, b)
		} else {
			more++
		}
	}
	for _, t := range tk.turns {
		for _, m := range t.mentioned {
			if isMentionPath(m) {
				add(m)
			}
		}
		for _, it := range t.items {
			if it.ev != nil {
				for _, p := range it.ev.paths {
					add(p)
				}
			}
		}
	}
	return names, more
}

// baseName is the last segment of a path ("w1/src/App.tsx" gives
// "App.tsx", "w1/src/" gives "src"); other names are kept.
func baseName(p string) string {
	p = strings.TrimSpace(p)
	if t := strings.TrimRight(p, "/"); t != "" {
		p = t
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// topicOf is the topic of a user's words: the first sentence that is a
// request, as a heading; else the failure the user reported, or the
// background the user gave; "" when there is none of these.
func topicOf(text string) string {
	context, failure := "", ""
	n := 0
	for _, line := range headingLines(text) {
		ss := firstSentences(line, maxHeadingSents-n)
		for i, s := range ss {
			if n++; n > maxHeadingSents {
				break
			}
			c := cleanTopic(baseNames(s))
			switch {
			case c == "", isChatter(c), isFileName(c), isPath(c):
				continue
			case isFeedback(c):
				if failure == "" {
					failure = failureTopic(strings.Join(ss[i:], " "))
				}
				continue
			case isContextLine(c):
				if context == "" {
					context = shortHeading(contextTopic(c))
				}
				continue
			}
			if h := shortHeading(c); h != "" && !isChatter(h) {
				return questionMark(c, h)
			}
		}
	}
	if failure != "" {
		return failure
	}
	return context
}

// questionWords open a question that stays one in a heading.
var questionWords = wordSet(`why what how where when which who whom whose is are was were does do did
	can could should would will shall has have may might`)

// questionMark gives a heading made whole from a question its question
// mark back: "Where do the colours come from?" reads as a question, where
// "Where do the colours come from" would seem cut short.
func questionMark(sentence, h string) string {
	q := strings.TrimRight(sentence, " "+closers)
	if !strings.HasSuffix(q, "?") {
		return h
	}
	first, _, _ := strings.Cut(h, " ")
	if !questionWords[strings.ToLower(first)] || !strings.HasPrefix(q, h) && !strings.HasPrefix(capitalize(q), h) {
		return h // not a question any more, or cut
	}
	if strings.TrimRight(q[len(h):], "?!. ") != "" {
		return h
	}
	return h + "?"
}

// failureTopic names a report that something did not work after the first
// file it names: "That didn't work: src/a.ts:3:1 - error" gives "The
// reported failure in a.ts".
func failureTopic(s string) string {
	for k, tok := range strings.Fields(s) {
		if k >= 40 {
			break
		}
		core := strings.Trim(tok, leadPunct+trailPunct+"[]")
		if i := strings.IndexByte(core, ':'); i > 0 {
			core = core[:i]
		}
		if isPath(core) || isFileName(core) {
			if h := shortHeading("The reported failure in " + baseName(core)); h != "" {
				return h
			}
		}
	}
	return "The reported failure"
}

// isFileName reports whether a word looks like a file name: letters, a
// dot and a short extension of letters.
func isFileName(w string) bool {
	dot := strings.LastIndexByte(w, '.')
	if dot <= 0 || len(w)-dot-1 < 1 || len(w)-dot-1 > 5 {
		return false
	}
	for _, r := range w[dot+1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	for _, r := range w[:dot] {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.", r)) {
			return false
		}
	}
	return true
}

// contextTopic is a line of background without its label: "Context: this
// is the recipe app" gives "the recipe app".
func contextTopic(s string) string {
	for _, l := range contextLabels {
		if hasPrefixFold(s, l) {
			s = strings.TrimLeft(s[len(l):], " :,—–-")
			break
		}
	}
	for _, f := range []string{"this is ", "it's ", "it is ", "we're working on ", "we are working on ", "i'm working on ", "i am working on ", "the project is ", "this project is "} {
		if hasPrefixFold(s, f) && len(s) > len(f) {
			s = s[len(f):]
			break
		}
	}
	return s
}

// headingLines are the first lines of the user's words outside code
// blocks, each on one line with links replaced by their labels, up to
// maxHeadingSource bytes in all.
func headingLines(text string) []string {
	var out []string
	size := 0
	fence := false
	for rest := text; rest != "" && size < maxHeadingSource; {
		var ln string
		ln, rest, _ = strings.Cut(rest, "\n")
		ln = strings.TrimSpace(ln)
		if strings.HasPrefix(ln, "```") || strings.HasPrefix(ln, "~~~") {
			fence = !fence
			continue
		}
		if fence || ln == "" {
			continue
		}
		if len(ln) > maxHeadingSource-size {
			ln = strings.ToValidUTF8(ln[:maxHeadingSource-size], "")
		}
		size += len(ln)
		if ln = flatten(slashLinks(stripLinks(ln))); ln != "" {
			out = append(out, ln)
		}
	}
	return out
}

// baseNames replaces every path of a sentence by its base name: a heading
// names files short, and a path in it would not be a link.
func baseNames(s string) string {
	if strings.IndexByte(s, '/') < 0 {
		return s
	}
	var b strings.Builder
	for rest := s; rest != ""; {
		tok, after, found := strings.Cut(rest, " ")
		if strings.IndexByte(tok, '/') >= 0 {
			core := strings.TrimLeft(tok, leadPunct)
			pre := tok[:len(tok)-len(core)]
			core = strings.TrimRight(core, trailPunct)
			post := tok[len(pre)+len(core):]
			if isPath(core) {
				tok = pre + baseName(core) + post
			} else {
				tok = mapMounts(tok, baseName)
			}
		}
		b.WriteString(tok)
		if found {
			b.WriteByte(' ')
		}
		rest = after
	}
	return b.String()
}

// firstSentences is sentences stopping after n (at least one).
func firstSentences(s string, n int) []string {
	s = strings.TrimSpace(s)
	var out []string
	start := 0
	for _, e := range firstEnds(s, max(n, 1)) {
		if t := strings.TrimSpace(s[start:e]); t != "" {
			out = append(out, t)
		}
		start = e
	}
	if t := strings.TrimSpace(s[start:]); t != "" && len(out) < max(n, 1) {
		out = append(out, t)
	}
	return out
}

// leadFillers are dropped from the start of a heading.
var leadFillers = []string{
	"please ", "pls ", "can you ", "could you ", "would you ", "will you ", "can we ", "could we ",
	"i want you to ", "i'd like you to ", "i would like you to ", "i need you to ", "i want to ",
	"i'd like to ", "let's ", "lets ", "let us ", "go ahead and ", "also, ", "also ", "and ", "then ",
	"so, ", "so ", "now, ", "now ", "next, ", "next ", "ok so ", "ok ", "okay ", "hey ", "hi ", "hello ",
	"alright ", "just ",
}

// chatterWords make up small talk and acknowledgements. A sentence of
// nothing but these names no topic, and one of them followed by a comma or
// an exclamation mark is dropped from the start of a heading.
var chatterWords = func() map[string]bool {
	m := map[string]bool{}
	for w := range ackWords {
		m[w] = true
	}
	for _, w := range strings.Fields(`looks look sounds awesome excellent wow amazing work job well that
		that's thats it's its is me to really very much so lot a all works now hi hello hey love like i
		this lovely brilliant super sweet exactly indeed absolutely definitely of course true got
		understood noted makes sense yup fantastic wonderful neat beautiful better hmm oh ah oops
		great awesome nice thanks thank the same way job`) {
		m[w] = true
	}
	return m
}()

// isChatter reports whether a sentence is small talk: at most six words,
// all of them chatterWords.
func isChatter(s string) bool {
	if len(s) > 90 {
		return false // longer than six chatter words
	}
	n := 0
	var buf [24]byte
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && r != '\'' && r != '’' {
			i += size
			continue
		}
		// one word: letters and apostrophes, lower-cased
		w := buf[:0]
		for i < len(s) {
			r, size = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == '’':
				r = '\''
			case !unicode.IsLetter(r) && r != '\'':
				goto done
			}
			w = utf8.AppendRune(w, unicode.ToLower(r))
			i += size
		}
	done:
		if n++; n > 6 || !chatterWords[string(w)] {
			return false
		}
	}
	return true
}

// feedbackRe matches the start of a report that the last attempt did not
// work: "That didn't work: …", "Still failing", "Same error".
var feedbackRe = regexp.MustCompile(`^(?:(?:that|it|this|the fix|the change)(?:'s| is| was)? (?:still )?(?:didn't|did not|doesn't|does not|isn't|is not|wasn't|was not|won't|will not|hasn't|has not) (?:work|working|help|fix|fixed|change|changed)|(?:still|that's still|it's still|it is still|that is still) (?:not working|broken|failing|fails|the same|wrong|red|there)|(?:same|the same) (?:error|problem|issue|failure|result|thing)|(?:that|it|this) (?:still )?(?:fails|failed|breaks|broke|crashes|crashed|errors)|(?:not working|doesn't work|didn't work|does not work|did not work|no luck|no change|nothing changed|still broken))(?:$|[^a-z])`)

// feedbackStarts are the first words feedbackRe (after the openings
// isFeedback drops) can match.
var feedbackStarts = wordSet(`that it this the still same not doesn didn does did no nothing hmm sorry
	but unfortunately nope`)

// isFeedback reports whether a user's words start by saying that the last
// attempt did not work.
func isFeedback(s string) bool {
	s = strings.TrimLeft(s, " \t\n#>*_\"'“‘`")
	w := 0
	for w < len(s) && w < 16 && (s[w] >= 'a' && s[w] <= 'z' || s[w] >= 'A' && s[w] <= 'Z') {
		w++
	}
	if !feedbackStarts[strings.ToLower(s[:w])] {
		return false
	}
	if len(s) > 80 {
		s = strings.ToValidUTF8(s[:80], "")
	}
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'")
	for _, f := range []string{"hmm, ", "hmm ", "no, ", "nope, ", "sorry, ", "but ", "unfortunately, ", "unfortunately "} {
		s = strings.TrimPrefix(s, f)
	}
	return feedbackRe.MatchString(s)
}

// contextLabels start a line that gives background rather than a request.
var contextLabels = []string{"context:", "background:", "fyi", "note:", "for context", "some context", "info:", "for reference"}

func isContextLine(s string) bool {
	for _, l := range contextLabels {
		if hasPrefixFold(s, l) {
			return true
		}
	}
	return false
}

// cleanTopic takes the fillers off a sentence: quoting and emphasis marks,
// polite openings, leading small talk; a leading slash command reads as
// its verb ("/implement the plan" gives "Implement the plan").
func cleanTopic(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(s, "#>*_ \"'“‘`"))
	for changed := true; changed; {
		changed = false
		for _, f := range leadFillers {
			if hasPrefixFold(s, f) && len(s) > len(f) {
				s = strings.TrimSpace(s[len(f):])
				changed = true
				break
			}
		}
		// "Great, …", "Thanks! …", "Perfect - …"
		w := 0
		for w < len(s) && (s[w] >= 'a' && s[w] <= 'z' || s[w] >= 'A' && s[w] <= 'Z' || s[w] == '\'') {
			w++
		}
		if w > 0 && w < len(s) && chatterWords[strings.ToLower(s[:w])] {
			rest := strings.TrimLeft(s[w:], " ")
			if r := strings.TrimLeft(rest, ",!;:—–-"); len(r) < len(rest) {
				s = strings.TrimSpace(r)
				changed = true
			}
		}
	}
	if strings.HasPrefix(s, "/") {
		name, rest, _ := strings.Cut(s[1:], " ")
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "" && name != "" && !strings.ContainsAny(name, "/ "):
			return "The /" + name + " command"
		case commandVerbs[name] || topicVerbs[name]:
			return capitalize(name) + " " + rest
		}
	}
	return s
}

// topicVerbs, with commandVerbs, are the verbs a slash command may be
// named after: "/implement the plan" reads "Implement the plan".
var topicVerbs = wordSet(`implement plan review refactor explain document summarize summarise design
	analyze analyse optimize optimise investigate improve draft rewrite split simplify extend translate
	polish tidy fix deploy release ship explore research outline describe port convert`)

// fillerTails are dropped from the end of any heading; functionTails from
// the end of a heading that was cut, where they would leave it hanging
// mid-phrase (a whole sentence may end in one: "What is this for").
var (
	fillerTails   = wordSet(`please pls thanks thank too also now just really etc e.g i.e & + - — –`)
	functionTails = wordSet(`the a an to and or but nor of with for in on at by from into onto as
		than that which who whose whom this these those my your our their its is are was were be been
		being if so because while when where about over under after before via per not no vs then
		can could should would will shall may might must do does did has have had such like`)
)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// clauseBreaks are where a long heading is best cut, in order of
// preference: punctuation, then a conjunction that starts a new clause.
var clauseBreaks = [...][]string{
	{"; ", ": ", " — ", " – ", " - ", ", "},
	{" so that ", " because ", " since ", " when ", " while ", " where ", " which ", " but ", " and then ", " then ", " and ", " or ", " if ", " as "},
}

// shortHeading makes a heading of a topic: within maxHeadingUnits, cut at
// the last clause break past the first third when there is one, else at a
// word, with no function word, open bracket or open quote left hanging,
// capitalised.
func shortHeading(s string) string {
	s = trimHeading(s, false)
	c, cut := cutUnits(s, maxHeadingUnits)
	if cut {
		for _, seps := range clauseBreaks {
			best := -1
			for _, sep := range seps {
				if i := strings.LastIndex(c, sep); i > best && i >= len(c)/3 {
					best = i
				}
			}
			if best > 0 {
				c = c[:best]
				break
			}
		}
		s = trimHeading(c, true)
	}
	s = closeHeading(s)
	return capitalize(s)
}

// closeHeading cuts a heading before a bracket or quote it opens and does
// not close.
func closeHeading(s string) string {
	for _, p := range [...][2]string{{"(", ")"}, {"[", "]"}, {"“", "”"}, {"‘", "’"}} {
		if o := strings.LastIndex(s, p[0]); o >= 0 && !strings.Contains(s[o:], p[1]) {
			if t := trimHeading(s[:o], true); t != "" {
				s = t
			} else {
				s = trimHeading(strings.Replace(s, p[0], "", 1), true)
			}
		}
	}
	for _, q := range []string{`"`, "`"} {
		if strings.Count(s, q)%2 == 1 {
			o := strings.LastIndex(s, q)
			if t := trimHeading(s[:o], true); t != "" {
				s = t
			} else {
				s = trimHeading(strings.Replace(s, q, "", 1), true)
			}
		}
	}
	return s
}

// trimHeading takes trailing punctuation and fillers off a heading, and
// function words too when it was cut (dropping a filler is a cut).
func trimHeading(s string, cut bool) string {
	for {
		before := s
		s = strings.TrimRight(s, " .,;:!?…—–-\"'“”‘’(`*_/&+")
		if i := strings.LastIndexByte(s, ' '); i > 0 {
			switch w := strings.ToLower(s[i+1:]); {
			case fillerTails[w]:
				// "… for now" must not end in "for" either
				s, cut = s[:i], true
			case cut && functionTails[w]:
				s = s[:i]
			}
		}
		if s == before {
			return s
		}
	}
}

// headingSet keeps headings apart from each other and from the working
// state's own: a repeated heading gets " (2)", " (3)" and so on.
type headingSet struct {
	used map[string]bool
	next map[string]int // the next number to try for a repeated heading
}

func newHeadingSet(taken ...string) *headingSet {
	hs := &headingSet{used: map[string]bool{}, next: map[string]int{}}
	for _, h := range taken {
		hs.used[strings.ToLower(h)] = true
	}
	return hs
}

func (hs *headingSet) unique(h string) string {
	if strings.EqualFold(h, stateHeading) || strings.EqualFold(h, oldStateHeading) {
		h += " (request)"
	}
	key := strings.ToLower(h)
	if hs.used[key] {
		n := max(hs.next[key], 2)
		for hs.used[strings.ToLower(h+" ("+strconv.Itoa(n)+")")] {
			n++
		}
		hs.next[key] = n + 1
		h += " (" + strconv.Itoa(n) + ")"
		key = strings.ToLower(h)
	}
	hs.used[key] = true
	return h
}

// isIdentifier reports whether a word is written as code (useTheme,
// npm_config, v2.1) and keeps its case.
func isIdentifier(w string) bool {
	_, n := utf8.DecodeRuneInString(w)
	for _, r := range w[n:] {
		if unicode.IsUpper(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '/' {
			return true
		}
	}
	return false
}
