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

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"gopkg.in/yaml.v3"

	"github.com/compactlab/compact/internal/history"
)

// Skill is one SKILL.md that loaded: it has a string name and a string
// description in its frontmatter.
type Skill struct {
	ID          string // command:<name lower-cased> or plugin:<dir>:<name>
	DisplayName string
	Body        string // the text after the frontmatter, trimmed
	Path        string
}

// Skills is a loaded skills tree.
type Skills struct {
	List []Skill
	byID map[string]SlashItem
}

// ErrNoSkillsDir is returned when the skills directory does not exist.
var ErrNoSkillsDir = errors.New("skills directory not found")

// LoadSkills reads <dir>/skills/*/SKILL.md (ids command:<name in lower
// case>) and <dir>/plugins/*/SKILL.md (ids plugin:<directory>:<name>). A
// skill whose body is empty loads but never resolves.
func LoadSkills(dir string) (*Skills, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrNoSkillsDir, dir)
	}
	s := &Skills{byID: map[string]SlashItem{}}
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
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			name, desc, body, ok := parseFrontmatter(string(data))
			if !ok || name == nil || desc == nil {
				continue
			}
			sk := Skill{DisplayName: *name, Body: trimJS(body), Path: path}
			if kind == "skills" {
				sk.ID = "command:" + lowerJS(*name)
			} else {
				sk.ID = "plugin:" + e.Name() + ":" + *name
			}
			s.List = append(s.List, sk)
			if sk.Body != "" {
				s.byID[sk.ID] = SlashItem{ID: sk.ID, DisplayName: sk.DisplayName, Content: sk.Body}
			}
		}
	}
	return s, nil
}

// Lookup returns the resolvable skill with id.
func (s *Skills) Lookup(id string) (SlashItem, bool) {
	if s == nil {
		return SlashItem{}, false
	}
	it, ok := s.byID[id]
	return it, ok
}

// parseFrontmatter splits gray-matter style "---" frontmatter from the body
// and returns the string name and description (nil when absent or not a
// string).
func parseFrontmatter(text string) (name, desc *string, body string, ok bool) {
	const delim = "---"
	if !strings.HasPrefix(text, delim) || strings.HasPrefix(text, delim+"-") {
		return nil, nil, text, true
	}
	rest := text[len(delim):]
	end := strings.Index(rest, "\n"+delim)
	var matter string
	if end < 0 {
		matter, body = rest, ""
	} else {
		matter = rest[:end]
		body = rest[end+1+len(delim):]
	}
	// The rest of the opening line names a language; drop it.
	if nl := strings.IndexByte(matter, '\n'); nl >= 0 {
		matter = matter[nl+1:]
	} else {
		matter = ""
	}
	var data map[string]any
	if err := yaml.Unmarshal([]byte(matter), &data); err != nil {
		return nil, nil, body, false
	}
	if v, ok := data["name"].(string); ok {
		name = &v
	}
	if v, ok := data["description"].(string); ok {
		desc = &v
	}
	return name, desc, body, true
}

// trimJS is String.prototype.trim.
func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
			return true
		}
		return r >= 0x2000 && r <= 0x200A
	})
}

// lowerJS is String.prototype.toLowerCase for the cases where Go differs.
func lowerJS(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

// SlashIDs lists the slash ids linked from the text parts of the user
// messages of msgs, in order, repeats included. It fails, as the upstream
// scan does, on a user text part whose text is not a string.
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
				continue
			}
			if t := part.Get("type"); t.Kind() != history.String || t.Str() != "text" {
				continue
			}
			text := part.Get("text")
			if text.Kind() != history.String {
				return nil, fmt.Errorf("message %d part %d: text is %s, not a string", i, j, history.Describe(text))
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
