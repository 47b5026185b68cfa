package main

import (
	"os"
	"path/filepath"
	"strings"
)

type skillFile struct {
	dir, name string // dir: "skills/<d>" or "plugins/<d>"
}

var skillNames = []string{"Build", "build", "BUILD", "Implement", "review & check", "Say \"hi\" <now>", "ΑΣ", "İstanbul", "straße", "ǅemal",
	"a10", "a9", "A_b", "a-b", "with space", "x.y", "Zed", "é", "😀emoji", "ﬀ", "k:colon", "", "123"}

var dirNames = []string{"build", "Build", "b", "kit", "Kit2", "x y", "é", "ΑΣ", "z", "a.b", "k:c", "_", "-"}

// skillsTree writes a random skills tree under root and returns the slash
// ids that may resolve (as the script builds them) plus some that cannot.
func (g *gen) skillsTree(root string) []string {
	var ids []string
	for _, sub := range []string{"skills", "plugins"} {
		n := g.IntN(6)
		used := map[string]bool{}
		for i := 0; i < n; i++ {
			d := pick(g, dirNames)
			if used[d] {
				continue
			}
			used[d] = true
			dir := filepath.Join(root, sub, d)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				panic(err)
			}
			name := pick(g, skillNames)
			content, ok := g.skillMD(name)
			if g.chance(5) {
				// a file where a directory is expected, or no SKILL.md
				_ = os.WriteFile(filepath.Join(dir, "README.md"), []byte(content), 0o644)
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
				panic(err)
			}
			if ok {
				if sub == "skills" {
					ids = append(ids, "command:"+jsLower(name))
					if g.chance(30) {
						ids = append(ids, "command:"+name) // the case the script does not use
					}
				} else {
					ids = append(ids, "plugin:"+d+":"+name)
				}
			}
		}
		if g.chance(10) {
			_ = os.MkdirAll(filepath.Join(root, sub), 0o755)
			_ = os.WriteFile(filepath.Join(root, sub, "loose.md"), []byte("---\nname: loose\ndescription: d\n---\nbody"), 0o644)
		}
		if g.chance(8) {
			// a symlinked skill directory: readdir reports a symlink, not a directory
			_ = os.MkdirAll(filepath.Join(root, sub), 0o755)
			tgt := filepath.Join(root, "linked-target")
			_ = os.MkdirAll(tgt, 0o755)
			_ = os.WriteFile(filepath.Join(tgt, "SKILL.md"), []byte("---\nname: Linked\ndescription: d\n---\nlinked body"), 0o644)
			_ = os.Symlink(tgt, filepath.Join(root, sub, "linked"))
			ids = append(ids, "command:linked", "plugin:linked:Linked")
		}
	}
	ids = append(ids, "command:nope", "plugin:kit:nope", "command:", "x y", "command:a)b", "é:ü", "command:A", "command:a", "Command:b", "1", "10", "2", "-", "_")
	return ids
}

// jsLower approximates String.prototype.toLowerCase for the generator's
// own bookkeeping (which ids to reference); the upstream decides the truth.
func jsLower(s string) string { return strings.ToLower(s) }

// skillMD returns a SKILL.md text and whether its frontmatter has a name
// and a description (a guess; the upstream decides).
func (g *gen) skillMD(name string) (string, bool) {
	nl := "\n"
	if g.chance(20) {
		nl = "\r\n"
	}
	bom := ""
	if g.chance(15) {
		bom = "\ufeff"
	}
	desc := pick(g, []string{"Does things.", "", "''", "\"\"", "  ", "|\n  multi\n  line", "123", "true", "~", "[a, b]", "'quoted: yes'", "x # comment"})
	nameLine := "name: " + yamlQuote(g, name)
	switch g.IntN(12) {
	case 0:
		nameLine = "name: 42"
	case 1:
		nameLine = ""
	case 2:
		nameLine = "Name: " + yamlQuote(g, name)
	}
	descLine := "description: " + desc
	if g.chance(8) {
		descLine = ""
	}
	body := pick(g, []string{"Do the thing.", "", "   ", "\n\nBody with ]]> inside\n\n", "Body <b>&amp;</b> 'q' \"d\"", "---\nnot frontmatter\n---", "line1" + nl + "line2" + nl, "😀 é \u2028 x"})
	front := []string{nameLine, descLine}
	if g.chance(10) {
		front = append(front, "user-invocable: false")
	}
	if g.chance(5) {
		front = append(front, "name: dup") // duplicate key: YAML error
	}
	if g.chance(5) {
		front = append(front, "\tbad: indent")
	}
	open := "---"
	switch g.IntN(25) {
	case 0:
		open = "--- "
	case 1:
		open = "---yaml"
	case 2:
		// JSON frontmatter
		return bom + "---json" + nl + `{"name": "` + strings.ReplaceAll(name, `"`, `\"`) + `", "description": "json fm"}` + nl + "---" + nl + body, true
	case 3:
		return bom + body, false // no frontmatter
	case 4:
		open = "----"
	}
	text := bom + open + nl + strings.Join(front, nl) + nl + "---" + nl + body
	if g.chance(5) {
		text = strings.TrimSuffix(text, body) // nothing after the closing line
	}
	return text, name != "" && desc != "" && nameLine != "" && descLine != ""
}

func yamlQuote(g *gen, s string) string {
	if g.chance(50) || strings.ContainsAny(s, ":\"'#&<>") || s == "" || s == "123" {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	return s
}
