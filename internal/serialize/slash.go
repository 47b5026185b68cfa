package serialize

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/compactlab/compact/internal/frontmatter"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/history"
)

// Skill is one SKILL.md that loaded: its frontmatter has a name and a
// description that are non-empty strings.
type Skill struct {
	ID          string // command:<name lower-cased> or plugin:<dir>:<name>
	DisplayName string
	Description string
	Body        string // the text after the frontmatter, trimmed
	Path        string
}

// Skills is a loaded skills tree.
type Skills struct {
	// List holds the skills that loaded, in the upstream's order: the
	// builtins (skills/*) then the plugins (plugins/*), each in directory
	// order (bytewise, as Node's readdir gives it).
	List []Skill
	// Warnings are the SKILL.md files the upstream cannot read at all (a
	// directory, an unreadable or oversized file): its whole run ends
	// there; compact leaves the skill out.
	Warnings []string
	byID     map[string]int // the first skill with each id
}

// ErrNoSkillsDir is returned when the skills directory does not exist.
var ErrNoSkillsDir = errors.New("skills directory not found")

// LoadSkills reads <dir>/skills/*/SKILL.md (ids command:<name in lower
// case>) and <dir>/plugins/*/SKILL.md (ids plugin:<directory>:<name>) as the
// upstream's discoverSkills does: the text decoded as Node decodes UTF-8,
// the frontmatter parsed by gray-matter (internal/frontmatter: a byte order
// mark stripped, YAML as js-yaml 3 reads it, JSON and literal JavaScript
// frontmatter too), and a skill kept only when its name and description
// are non-empty strings. Two skills may share an id: the first one, in
// the order of List, is the one an id resolves to (skills.find), and when
// its body is empty the id stays unresolved.
func LoadSkills(dir string) (*Skills, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoSkillsDir, dir)
	}
	s := &Skills{byID: map[string]int{}}
	for _, kind := range []string{"skills", "plugins"} {
		entries, err := os.ReadDir(filepath.Join(dir, kind))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			path := filepath.Join(dir, kind, e.Name(), "SKILL.md")
			if _, err := os.Stat(path); err != nil {
				continue // existsSync: false
			}
			data, err := fsutil.ReadFileLimit(path, fsutil.MaxJSStringBytes)
			if err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v: the upstream script crashes on it (its readFile throws) and writes nothing; compact leaves the skill out", path, err))
				continue
			}
			m, err := frontmatter.Matter(history.ToValidUTF8(string(data)))
			if err != nil {
				if errors.Is(err, frontmatter.ErrUnsupported) {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %v (gray-matter evaluates it); compact leaves the skill out", path, err))
				}
				continue
			}
			name, ok1 := m.String("name")
			desc, ok2 := m.String("description")
			if !ok1 || !ok2 || name == "" || desc == "" {
				continue
			}
			sk := Skill{DisplayName: name, Description: desc, Body: frontmatter.TrimJS(m.Content), Path: path}
			if kind == "skills" {
				sk.ID = "command:" + lowerJS(name)
			} else {
				sk.ID = "plugin:" + e.Name() + ":" + name
			}
			if _, dup := s.byID[sk.ID]; !dup {
				s.byID[sk.ID] = len(s.List)
			}
			s.List = append(s.List, sk)
		}
	}
	return s, nil
}

// Lookup returns what id resolves to (resolveSlashSkill): the first skill
// with that id, unless its body is empty.
func (s *Skills) Lookup(id string) (SlashItem, bool) {
	if s == nil {
		return SlashItem{}, false
	}
	i, ok := s.byID[id]
	if !ok || s.List[i].Body == "" {
		return SlashItem{}, false
	}
	sk := s.List[i]
	return SlashItem{ID: sk.ID, DisplayName: sk.DisplayName, Content: sk.Body}, true
}

// lowerJS is String.prototype.toLowerCase: Unicode's full lower-case
// mapping without a locale. It differs from strings.ToLower in two places:
// U+0130 (İ) becomes "i̇" (i and a combining dot above), and a capital
// sigma becomes the final form ς when it ends a word (Final_Sigma: a cased
// letter before it, none after it, case-ignorable characters skipped on
// both sides).
func lowerJS(s string) string {
	if !strings.ContainsAny(s, "\u0130\u03a3") {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3A3:
			if finalSigma(rs, i) {
				b.WriteRune(0x3C2)
			} else {
				b.WriteRune(0x3C3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the sigma at rs[i].
func finalSigma(rs []rune, i int) bool {
	before := false
	for j := i - 1; j >= 0; j-- {
		if caseIgnorable(rs[j]) {
			continue
		}
		before = cased(rs[j])
		break
	}
	if !before {
		return false
	}
	for j := i + 1; j < len(rs); j++ {
		if caseIgnorable(rs[j]) {
			continue
		}
		return !cased(rs[j])
	}
	return true
}

// cased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func cased(r rune) bool {
	return unicode.IsLower(r) || unicode.IsUpper(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk,
// and Word_Break MidLetter, MidNumLet and Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// SlashScanError is where the upstream extraction script's slash-id scan
// (extractSlashIdsFromText over the user messages whose parts are an
// array) throws, ending the whole upstream run: a part that is null or
// undefined, or a text that is truthy but not a string.
type SlashScanError struct {
	Message, Part int
	// What says what is wrong, in words ("part is null", "text is number
	// 5, not a string").
	What string
	// JS is the TypeError the upstream throws.
	JS string
}

func (e *SlashScanError) Error() string {
	return fmt.Sprintf("message %d part %d: %s (upstream: %s)", e.Message, e.Part, e.What, e.JS)
}

// SlashIDs lists the slash ids linked from the text parts of the user
// messages of msgs, in order, repeats included, as the upstream scan does:
// a part that is not an object or whose type is not "text" is passed over,
// and so is a text that is falsy (0, null, false, NaN, ""); it fails with a
// *SlashScanError where the upstream throws, on a null or undefined part
// and on a truthy text that is not a string. A null message is passed over
// (the upstream script has crashed on it before, reading its metadata).
func SlashIDs(msgs []history.Value) ([]string, error) {
	var ids []string
	for i, msg := range msgs {
		if msg.IsNullish() || history.Role(msg) != "user" {
			continue
		}
		parts := msg.Get("parts")
		if parts.Kind() != history.Array {
			continue
		}
		for j, part := range parts.Elems() {
			if part.IsNullish() {
				return nil, &SlashScanError{Message: i, Part: j, What: "part is " + part.Kind().String(),
					JS: fmt.Sprintf("TypeError: Cannot read properties of %s (reading 'type')", part.Kind())}
			}
			if t := part.Get("type"); t.Kind() != history.String || t.Str() != "text" {
				continue
			}
			text := part.Get("text")
			if !text.Truthy() {
				continue
			}
			if text.Kind() != history.String {
				return nil, &SlashScanError{Message: i, Part: j, What: fmt.Sprintf("text is %s, not a string", history.Describe(text)),
					JS: "TypeError: part.text.matchAll is not a function or its return value is not iterable"}
			}
			for _, m := range slashLinks(text.Str()) {
				ids = append(ids, m[2])
			}
		}
	}
	return ids, nil
}

// Resolution is one id and whether it resolved.
type Resolution struct {
	ID       string `json:"id"`
	Resolved bool   `json:"resolved"`
}

// Resolve resolves ids (deduplicated) against skills: the map to serialize
// with (resolved ids only) and every id with its outcome, sorted as
// JavaScript's localeCompare sorts them.
func Resolve(ids []string, skills *Skills) (map[string]SlashItem, []Resolution) {
	seen := map[string]bool{}
	var uniq []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	resolved := map[string]SlashItem{}
	out := make([]Resolution, 0, len(uniq))
	for _, id := range uniq {
		it, ok := skills.Lookup(id)
		if ok {
			resolved[id] = it
		}
		out = append(out, Resolution{ID: id, Resolved: ok})
	}
	SortLocale(out, func(r Resolution) string { return r.ID })
	return resolved, out
}

// collators holds collators for SortLocale: one costs about 6 KB and a
// few microseconds to make, and is not safe for concurrent use.
var collators = sync.Pool{New: func() any { return collate.New(language.AmericanEnglish) }}

// SortLocale sorts xs by key with ICU's root collation, as
// String.prototype.localeCompare does under Node's full ICU (en-US).
func SortLocale[T any](xs []T, key func(T) string) {
	if len(xs) < 2 {
		return
	}
	c := collators.Get().(*collate.Collator)
	defer collators.Put(c)
	var buf collate.Buffer
	keys := make([][]byte, len(xs))
	for i, x := range xs {
		keys[i] = append([]byte(nil), c.KeyFromString(&buf, key(x))...)
		buf.Reset()
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return string(keys[idx[a]]) < string(keys[idx[b]]) })
	sorted := make([]T, len(xs))
	for i, j := range idx {
		sorted[i] = xs[j]
	}
	copy(xs, sorted)
}
