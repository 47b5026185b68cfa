package briefing

import (
	"sort"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// This file keeps the artifact trail: every file and folder the history
// names, with the strongest thing done to it. The sections name their
// paths as they tell the work; when the size target condenses them and
// some paths drop out, a "## Other files" section lists those paths by
// what was done to them, the changed files first, so that the briefing
// still names every path it can: a file that leaves the briefing is
// forgotten for good.

// What was done to a path, weakest first.
const (
	actNamed     uint8 = iota // named in passing, or by the earlier briefing
	actMentioned              // pointed to by the user
	actRead                   // read or linted
	actMoved                  // moved or copied away
	actDeleted
	actEdited
	actCreated
)

// fileActs are the acts of the file markers, by verb.
var fileActs = map[string]uint8{"read": actRead, "create": actCreated, "write": actEdited, "delete": actDeleted}

const (
	filesHeading = "Other files"
	// maxTrailRounds bounds how often the layout is squeezed to make room
	// for the paths it left out.
	maxTrailRounds = 3
)

// trailLeads open the sentences of the files section, by act, strongest
// first: the order the section lists them in, and the order in which
// they keep their place when not all of them fit.
var trailLeads = [...]struct {
	act  uint8
	lead string
}{
	{actCreated, "You created "},
	{actEdited, "You edited "},
	{actDeleted, "You deleted "},
	{actMoved, "You moved or copied "},
	{actRead, "You read "},
	{actMentioned, "The user pointed to "},
	{actNamed, "The work also named "},
}

// trailPath is one path of the trail.
type trailPath struct {
	link string // the [](path:…) link as written
	act  uint8
	last int // order of the last mention, for recency
}

// trail is every path of the history, in order of first mention.
type trail struct {
	paths  []*trailPath
	byLink map[string]*trailPath
	n      int
}

func newTrail() *trail { return &trail{byLink: make(map[string]*trailPath, 64)} }

// add records a path link with what was done to it.
func (tr *trail) add(link string, act uint8) {
	tr.n++
	if p, ok := tr.byLink[link]; ok {
		p.act = max(p.act, act)
		p.last = tr.n
		return
	}
	p := &trailPath{link: link, act: act, last: tr.n}
	tr.byLink[link] = p
	tr.paths = append(tr.paths, p)
}

// addLinks records the path links of a text.
func (tr *trail) addLinks(s string, act uint8) {
	eachPathLink(s, func(l string) {
		if len(l) <= maxDigestLink {
			tr.add(l, act)
		}
	})
}

// eachPathLink calls f with every [](path:…) link of s, written with an
// empty label and no title, in order. It finds the links by their
// "](path:" (a text without one costs one search) and reads them as
// links does.
func eachPathLink(s string, f func(link string)) {
	for i := 0; ; {
		k := strings.Index(s[i:], "](path:")
		if k < 0 {
			return
		}
		at := i + k
		i = at + len("](path:")
		open := strings.LastIndexByte(s[max(0, at-maxLinkLabel):at], '[')
		if open < 0 {
			continue
		}
		open += max(0, at-maxLinkLabel)
		if strings.IndexByte(s[open+1:at], ']') >= 0 || strings.IndexByte(s[open+1:at], '\n') >= 0 {
			continue
		}
		n := linkLen(s[open:])
		if n == 0 {
			continue
		}
		l := s[open : open+n]
		if open+1 == at && strings.IndexAny(l, " \t") < 0 {
			f(l) // already [](path:…)
		} else {
			f(emptyLabel(l))
		}
		i = open + n
	}
}

// emptyLabel is a path link with an empty label and without a title: the
// form the trail lists, whatever the label the text gave it.
func emptyLabel(l string) string {
	i := strings.Index(l, "](")
	t := l[i+2 : len(l)-1]
	if sp := strings.IndexAny(t, " \t"); sp >= 0 {
		t = t[:sp]
	}
	return "[](" + t + ")"
}

// addProse records the paths of your prose and of stray text: all that a
// full layout may leave out, as it cuts prose to its first sentences.
func (tr *trail) addProse(tasks []*task) *trail {
	for _, tk := range tasks {
		for _, t := range tk.turns {
			switch t.role {
			case roleAssistant:
				for k := range t.items {
					if t.items[k].ev == nil {
						w, _ := t.items[k].prose(false)
						tr.addLinks(w, actNamed)
					}
				}
			case roleOther:
				tr.addLinks(linkify(t.text), actNamed)
			}
		}
	}
	return tr
}

// collectTrail reads every path of the history: the previous briefing's
// links first, then the turns in order.
func collectTrail(prev []prevSection, trailPrev []prevSection, tasks []*task) *trail {
	tr := newTrail()
	for i := range prev {
		tr.addPrev(prev[i].body)
	}
	for i := range trailPrev {
		for _, s := range sentences(flatten(trailPrev[i].body)) {
			tr.addLinks(s, prevAct(s, false))
		}
	}
	for _, tk := range tasks {
		for _, t := range tk.turns {
			switch t.role {
			case roleUser:
				for _, m := range t.mentioned {
					if isMentionPath(m) {
						tr.add(emptyLabel(linkOr(m, "")), actMentioned)
					}
				}
				tr.addLinks(userWords(t), actMentioned)
			case roleAssistant:
				for k := range t.items {
					it := &t.items[k]
					if ev := it.ev; ev != nil {
						for i, p := range ev.paths {
							tr.add(linkOr(p, ""), ev.act(i))
						}
						continue
					}
					w, _ := it.prose(false)
					tr.addLinks(w, actNamed)
				}
			default:
				tr.addLinks(linkify(t.text), actNamed)
			}
		}
	}
	return tr
}

// addPrev records the path links of an earlier briefing's section. A
// sentence of it that starts as this writer tells a call ("You edited
// …") and names nothing but paths says what was done to them.
func (tr *trail) addPrev(body string) {
	if !strings.Contains(body, "](path:") {
		return
	}
	tr.addLinks(body, actNamed)
	for i := 0; ; {
		k := strings.Index(body[i:], "You ")
		if k < 0 {
			return
		}
		at := i + k
		i = at + len("You ")
		if before := strings.TrimRight(body[:at], " \t\n"); before != "" && !strings.ContainsRune(".!?", rune(before[len(before)-1])) {
			continue
		}
		s := body[at:]
		if e := firstEnds(s, 1); len(e) > 0 {
			s = s[:e[0]]
		}
		if act := prevAct(s, true); act != actNamed {
			tr.addLinks(s, act)
		}
	}
}

// prevActs are the starts of the sentences of an earlier briefing that
// say what was done to the paths they name: the files section's leads and
// the calls as this writer tells them.
var prevActs = func() []struct {
	lead string
	act  uint8
} {
	out := []struct {
		lead string
		act  uint8
	}{{"You wrote ", actEdited}, {"You moved ", actMoved}, {"You copied ", actMoved}, {"You ran the linter on ", actRead}}
	for _, l := range trailLeads {
		if l.act != actNamed && l.act != actMentioned {
			out = append(out, struct {
				lead string
				act  uint8
			}{l.lead, l.act})
		}
	}
	return out
}()

// prevAct is what a sentence of an earlier briefing says was done to the
// paths it names (actNamed when it does not say). With only, the sentence
// must name nothing but its paths ("You edited A (2 edits) and B."): a
// sentence that goes on ("You deleted A and moved B to C") does not say
// the same of all its paths.
func prevAct(s string, only bool) uint8 {
	if !strings.HasPrefix(s, "You ") {
		return actNamed
	}
	for _, p := range prevActs {
		if strings.HasPrefix(s, p.lead) {
			if only && !onlyLinks(s[len(p.lead):]) {
				return actNamed
			}
			return p.act
		}
	}
	return actNamed
}

// onlyLinks reports whether s is a list of links, each maybe followed by
// its count of edits, and an end mark.
func onlyLinks(s string) bool {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	for s != "" {
		n := linkLen(s)
		if n == 0 {
			return false
		}
		s = s[n:]
		if strings.HasPrefix(s, " (") {
			e := strings.IndexByte(s, ')')
			if e < 0 || !strings.HasSuffix(s[:e], " edits") && !strings.HasSuffix(s[:e], " edit") {
				return false
			}
			s = s[e+1:]
		}
		switch {
		case strings.HasPrefix(s, ", "):
			s = s[2:]
		case strings.HasPrefix(s, " and "):
			s = s[5:]
		case s != "":
			return false
		}
	}
	return true
}

// missing lists the trail's paths that no piece links to.
func (tr *trail) missing(pieces []string) []*trailPath {
	if len(tr.paths) == 0 {
		return nil
	}
	have := make(map[string]bool, len(tr.paths))
	for _, p := range pieces {
		eachPathLink(p, func(l string) { have[l] = true })
	}
	var out []*trailPath
	for _, p := range tr.paths {
		if !have[p.link] {
			out = append(out, p)
		}
	}
	return out
}

// trailSection writes the files section for paths within room UTF-16
// units. When they do not all fit, the changed files keep
// their place first, then the read ones, then the rest, the most recent
// first within each kind, and a closing sentence counts those left out.
// It returns "" when not even one path fits, and how many are listed.
func trailSection(paths []*trailPath, room int) (string, int) {
	if len(paths) == 0 {
		return "", 0
	}
	all := renderTrail(paths, 0)
	if history.Len16(all) <= room {
		return all, len(paths)
	}
	// Rank by act, then recency; keep as many of the best as fit.
	ranked := append([]*trailPath(nil), paths...)
	sort.SliceStable(ranked, func(i, j int) bool {
		if ranked[i].act != ranked[j].act {
			return ranked[i].act > ranked[j].act
		}
		return ranked[i].last > ranked[j].last
	})
	// Each path costs its link and a separator; find the largest prefix
	// that fits, then check the real size.
	keep := 0
	size := history.Len16("## "+filesHeading+"\n\n") + 40 // the closing count sentence
	for _, p := range ranked {
		size += history.Len16(p.link) + 2
		if size > room {
			break
		}
		keep++
	}
	// The estimate leaves out the sentences' leads: find the largest
	// number of paths at most the estimate that really fits.
	rank := make(map[*trailPath]int, len(ranked))
	for i, p := range ranked {
		rank[p] = i
	}
	render := func(k int) string {
		list := make([]*trailPath, 0, k)
		for _, p := range paths {
			if rank[p] < k {
				list = append(list, p)
			}
		}
		return renderTrail(list, len(paths)-k)
	}
	best, bestK := "", 0
	for lo, hi := 1, keep; lo <= hi; {
		mid := (lo + hi) / 2
		if s := render(mid); history.Len16(s) <= room {
			best, bestK, lo = s, mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best, bestK
}

// renderTrail writes the files section: one sentence per act, in the order
// of trailLeads, the paths in alphabetical order.
func renderTrail(paths []*trailPath, more int) string {
	var b strings.Builder
	b.WriteString("## " + filesHeading + "\n\n")
	first := true
	for _, l := range trailLeads {
		var ls []string
		for _, p := range paths {
			if p.act == l.act {
				ls = append(ls, p.link)
			}
		}
		sort.Strings(ls)
		if len(ls) == 0 {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		b.WriteString(l.lead + joinList(ls) + ".")
	}
	if more > 0 {
		if !first {
			b.WriteByte(' ')
		}
		if more == 1 {
			b.WriteString("One more file or folder was named and is not listed here.")
		} else {
			b.WriteString(strconv.Itoa(more) + " more files and folders were named and are not listed here.")
		}
	}
	return b.String()
}

// resolveFailures marks every failed call that a later call of the same
// kind and object made good.
func resolveFailures(tasks []*task) {
	ok := map[string]bool{}
	for i := len(tasks) - 1; i >= 0; i-- {
		turns := tasks[i].turns
		for j := len(turns) - 1; j >= 0; j-- {
			items := turns[j].items
			for k := len(items) - 1; k >= 0; k-- {
				ev := items[k].ev
				switch {
				case ev == nil:
				case ev.fail:
					ev.resolved = ok[ev.key]
				case !ev.unproven:
					ok[ev.key] = true
				}
			}
		}
	}
}
