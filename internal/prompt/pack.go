package prompt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/compactlab/compact/internal/fsutil"
)

// PackFormat is the value of the "format" field of pack.json.
const PackFormat = "compact-prompt-pack/1"

// File names inside a pack directory.
const (
	SystemPromptFile = "system-prompt.md"
	PackFile         = "pack.json"
)

// DefaultTargetChars is the upstream prompt's target size of a briefing
// (COMPRESSION_TARGET_CHARS), in UTF-16 units: the size measures' target
// when nothing else is said.
const DefaultTargetChars = 30000

// Pack is a prompt pack: the system prompt and the user-message template.
type Pack struct {
	// SystemPrompt is the system prompt text, exactly as sent.
	SystemPrompt string
	// TargetChars is the briefing's target size in characters (UTF-16
	// units); it is the denominator of the hint ratio and the {target}
	// number.
	TargetChars int
	// Layout is the fixed part of the user message.
	Layout Layout
	// Hints are the size-hint buckets, tried in order.
	Hints []Hint
}

// Layout is the fixed text of the user message around the compact history
// and the hint: Prefix + history + Suffix + Separator + hint + Separator +
// Closing.
type Layout struct {
	Prefix    string `json:"prefix"`
	Suffix    string `json:"suffix"`
	Separator string `json:"separator"`
	Closing   string `json:"closing"`
}

// Hint is one size-hint bucket: a condition (see the package documentation)
// and a template with {target}, {prev} and {percent} placeholders.
type Hint struct {
	When     string `json:"when"`
	Template string `json:"template"`
}

// Condition names as written in pack.json.
const (
	CondPrevZero  = "prev == 0"
	CondOtherwise = "otherwise"
)

// CondRatioBelow returns the condition "ratio < x".
func CondRatioBelow(x float64) string {
	return "ratio < " + strconv.FormatFloat(x, 'g', -1, 64)
}

// packFile is the JSON shape of pack.json.
type packFile struct {
	Format      string `json:"format"`
	TargetChars int    `json:"targetChars"`
	UserMessage Layout `json:"userMessage"`
	Hints       []Hint `json:"hints"`
}

// System returns the system prompt.
func (p *Pack) System() string { return p.SystemPrompt }

// Clone returns a deep copy of p.
func (p *Pack) Clone() *Pack {
	q := *p
	q.Hints = append([]Hint(nil), p.Hints...)
	return &q
}

// Validate checks the target size, the bucket conditions and the templates.
func (p *Pack) Validate() error {
	if p.TargetChars <= 0 {
		return fmt.Errorf("targetChars must be a positive integer, got %d", p.TargetChars)
	}
	if len(p.Hints) == 0 {
		return errors.New("hints: at least one bucket is needed (the last one \"otherwise\")")
	}
	for i, h := range p.Hints {
		c, err := parseCond(h.When)
		if err != nil {
			return fmt.Errorf("hints[%d].when: %w", i, err)
		}
		last := i == len(p.Hints)-1
		if c.kind == condOtherwise && !last {
			return fmt.Errorf("hints[%d].when: %q must be the last bucket", i, CondOtherwise)
		}
		if last && c.kind != condOtherwise {
			return fmt.Errorf("hints[%d].when: the last bucket must be %q, got %q", i, CondOtherwise, h.When)
		}
		if _, err := parseTemplate(h.Template); err != nil {
			return fmt.Errorf("hints[%d].template: %w", i, err)
		}
	}
	return nil
}

// UserMessage builds the user message for compact (the serialized history)
// when the previous briefing was prevChars UTF-16 units long, formatting the
// numbers for locale (a BCP 47 tag such as "en-US"; see FormatInt).
//
// It follows upstream buildCompressionUserMessage: ratio = prev/target in
// float64, the first bucket whose condition holds gives the hint. On a pack
// that does not validate it does its best: a bucket with an unreadable
// condition never matches and an unreadable template is used as plain text.
func (p *Pack) UserMessage(compact string, prevChars int, locale string) string {
	before, after := p.UserMessageAround(prevChars, locale)
	return before + compact + after
}

// UserMessageAround returns the user message's text before and after the
// compact history: UserMessage(compact, prevChars, locale) is before +
// compact + after. A caller that builds many messages can write the
// history in place between the two, with no copy of it.
func (p *Pack) UserMessageAround(prevChars int, locale string) (before, after string) {
	ratio := float64(prevChars) / float64(p.TargetChars)
	hint := ""
	for _, h := range p.Hints {
		c, err := parseCond(h.When)
		if err != nil || !c.holds(prevChars, ratio) {
			continue
		}
		hint = renderTemplate(h.Template, FormatInt(p.TargetChars, locale), FormatInt(prevChars, locale), jsNumberToString(jsRound(ratio*100)))
		break
	}
	l := p.Layout
	return l.Prefix, l.Suffix + l.Separator + hint + l.Separator + l.Closing
}

// jsRound is JavaScript's Math.round: the nearest integer, ties towards +∞.
// It equals floor(x+0.5) except where x+0.5 rounds up in float64 (e.g. for
// 0.49999999999999994), which no ratio*100 of realistic sizes hits.
func jsRound(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	if r == 0 && math.Signbit(x) {
		return math.Copysign(0, -1)
	}
	return r
}

// ---- conditions ----

type condKind int

const (
	condPrevZero condKind = iota
	condRatioBelow
	condOtherwise
)

type cond struct {
	kind condKind
	x    float64
}

func (c cond) holds(prev int, ratio float64) bool {
	switch c.kind {
	case condPrevZero:
		return prev == 0
	case condRatioBelow:
		return ratio < c.x
	default:
		return true
	}
}

// parseCond reads "prev == 0", "ratio < X" or "otherwise"; spaces are free.
func parseCond(s string) (cond, error) {
	t := strings.Join(strings.Fields(s), "")
	switch {
	case t == "otherwise":
		return cond{kind: condOtherwise}, nil
	case t == "prev==0":
		return cond{kind: condPrevZero}, nil
	case strings.HasPrefix(t, "ratio<"):
		num := strings.TrimPrefix(t, "ratio<")
		if !isDecimalLiteral(num) {
			return cond{}, fmt.Errorf("%q: expected a decimal number after \"ratio <\"", s)
		}
		x, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return cond{}, fmt.Errorf("%q: %v", s, err)
		}
		return cond{kind: condRatioBelow, x: x}, nil
	}
	return cond{}, fmt.Errorf("%q: expected \"prev == 0\", \"ratio < X\" or \"otherwise\"", s)
}

// isDecimalLiteral accepts digits with an optional fraction and exponent
// (no sign, no hex, no inf/nan), so that ParseFloat reads what JS would.
func isDecimalLiteral(s string) bool {
	i, n := 0, len(s)
	digits := func() int {
		j := i
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	d := digits()
	if i < n && s[i] == '.' {
		i++
		d += digits()
	}
	if d == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// ---- templates ----

type placeholder int

const (
	phNone placeholder = iota
	phTarget
	phPrev
	phPercent
)

var placeholderNames = map[string]placeholder{"target": phTarget, "prev": phPrev, "percent": phPercent}

type segment struct {
	text string
	ph   placeholder
}

// parseTemplate splits a hint template into text and placeholders.
func parseTemplate(s string) ([]segment, error) {
	var segs []segment
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			segs = append(segs, segment{text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			text.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			text.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unclosed '{' at byte %d (write \"{{\" for a literal brace)", i)
			}
			name := s[i+1 : i+end]
			ph, ok := placeholderNames[name]
			if !ok {
				return nil, fmt.Errorf("unknown placeholder {%s} at byte %d (known: {target}, {prev}, {percent}; write \"{{\" for a literal brace)", name, i)
			}
			flush()
			segs = append(segs, segment{ph: ph})
			i += end + 1
		case c == '}':
			return nil, fmt.Errorf("lone '}' at byte %d (write \"}}\" for a literal brace)", i)
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return segs, nil
}

// renderTemplate substitutes the placeholders; a template that does not parse
// is returned unchanged.
func renderTemplate(tmpl, target, prev, percent string) string {
	segs, err := parseTemplate(tmpl)
	if err != nil {
		return tmpl
	}
	var b strings.Builder
	for _, s := range segs {
		switch s.ph {
		case phTarget:
			b.WriteString(target)
		case phPrev:
			b.WriteString(prev)
		case phPercent:
			b.WriteString(percent)
		default:
			b.WriteString(s.text)
		}
	}
	return b.String()
}

// escapeTemplateText doubles the braces of literal text.
func escapeTemplateText(s string) string {
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}

// ---- loading and saving ----

// LoadPack reads the pack in directory dir.
func LoadPack(dir string) (*Pack, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("prompt pack %s: no such directory (built-in packs: %s)", dir, strings.Join(BuiltinNames(), ", "))
	}
	p, err := loadPackFS(os.DirFS(dir), ".")
	if err != nil {
		return nil, fmt.Errorf("prompt pack %s: %w", dir, err)
	}
	return p, nil
}

func loadPackFS(fsys fs.FS, dir string) (*Pack, error) {
	sys, err := fs.ReadFile(fsys, pathJoin(dir, SystemPromptFile))
	if err != nil {
		return nil, err
	}
	raw, err := fs.ReadFile(fsys, pathJoin(dir, PackFile))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var pf packFile
	if err := dec.Decode(&pf); err != nil {
		return nil, fmt.Errorf("%s: %w", PackFile, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", PackFile)
	}
	if pf.Format != PackFormat {
		return nil, fmt.Errorf("%s: format is %q, expected %q", PackFile, pf.Format, PackFormat)
	}
	p := &Pack{
		SystemPrompt: string(sys),
		TargetChars:  pf.TargetChars,
		Layout:       pf.UserMessage,
		Hints:        pf.Hints,
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", PackFile, err)
	}
	return p, nil
}

func pathJoin(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// MarshalPackJSON returns the pack.json bytes of p: two-space indentation,
// no HTML escaping, a final newline.
func (p *Pack) MarshalPackJSON() ([]byte, error) {
	hints := p.Hints
	if hints == nil {
		hints = []Hint{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(packFile{Format: PackFormat, TargetChars: p.TargetChars, UserMessage: p.Layout, Hints: hints}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Hash identifies the pack's text: the sha256, in hex, of its system
// prompt, a NUL byte and its pack.json (MarshalPackJSON), what Save
// writes. `compact prompt import` prints it, and internal/upstream records
// it for every profile's prompt.ts.
func (p *Pack) Hash() (string, error) {
	js, err := p.MarshalPackJSON()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(p.SystemPrompt))
	h.Write([]byte{0})
	h.Write(js)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Save writes p into directory dir (created if needed). Each file is written
// under a temporary name in dir, .<name>.tmp-N, held for the life of the
// process, and then renamed over the final one, so a reader never sees a
// half-written file; CleanLeftovers removes what a killed Save left.
func (p *Pack) Save(dir string) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("prompt pack: %w", err)
	}
	js, err := p.MarshalPackJSON()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(dir, SystemPromptFile, []byte(p.SystemPrompt)); err != nil {
		return err
	}
	return writeFileAtomic(dir, PackFile, js)
}

// tmpPrefix starts the temporary names Save writes the file name under.
func tmpPrefix(name string) string { return "." + name + ".tmp-" }

func writeFileAtomic(dir, name string, data []byte) (err error) {
	f, err := fsutil.CreateTemp(dir, tmpPrefix(name), "")
	if err != nil {
		return err
	}
	tmp := f.Name()
	// Held until renamed or removed: a leftover to no other import.
	defer fsutil.Release(tmp)
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		_ = f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}

// CleanLeftovers removes from the pack directory dir the temporary files
// of killed Saves (.system-prompt.md.tmp-N, .pack.json.tmp-N) that no live
// process holds. It returns how many it removed and the first error; it
// goes on past errors. Without locks (see fsutil.Locking) it removes
// nothing.
func CleanLeftovers(dir string) (int, error) {
	total := 0
	var first error
	for _, name := range []string{SystemPromptFile, PackFile} {
		n, err := fsutil.CleanStale(dir, tmpPrefix(name))
		total += n
		if err != nil && first == nil {
			first = err
		}
	}
	return total, first
}
