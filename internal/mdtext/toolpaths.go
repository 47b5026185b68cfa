package mdtext

import (
	"regexp"
	"strings"
)

// Files of tool markers.
//
// The compact histories of other agents (compact extract --from
// claude-code|codex) name files workspace-relative, without a mount
// prefix: src/a.ts. Their file markers ([read: …], [edited: …],
// [created: …], [wrote: …], [deleted: …], [moved: a → b], [copied: a → b])
// make those files must-keep paths too. A briefing keeps one when it links
// it ([](path:src/a.ts)) or names it as a whole word: not inside a longer
// path or word.

var fileMarkerRe = regexp.MustCompile(`^\[(read|edited|created|wrote|deleted|moved|copied): (.+)\]$`)
var editsSuffixRe = regexp.MustCompile(` \(\d+ edits?\)$`)

// toolPaths returns the files the file markers of text name that are not
// mount-prefixed (those are plain paths already), in order.
func toolPaths(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		m := fileMarkerRe.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		subject := m[2]
		if i := strings.Index(subject, " ✗ "); i >= 0 {
			continue // a failed call touched nothing
		}
		var files []string
		if m[1] == "moved" || m[1] == "copied" {
			a, b, ok := strings.Cut(subject, " → ")
			if !ok {
				continue
			}
			files = []string{a, b}
		} else {
			if i := strings.LastIndex(subject, " → "); i >= 0 {
				out := subject[i+len(" → "):]
				if out != "✓" {
					continue // an exit status or a time-out: a failed call
				}
				subject = subject[:i]
			}
			files = []string{editsSuffixRe.ReplaceAllString(subject, "")}
		}
		for _, f := range files {
			f = strings.TrimSpace(f)
			if isRelFile(f) && len(plainPaths(f)) == 0 {
				out = append(out, f)
			}
		}
	}
	return out
}

// isRelFile reports whether s reads as one workspace-relative file: no
// white space, not absolute, with a folder or an extension.
func isRelFile(s string) bool {
	if s == "" || len(s) > 512 || strings.ContainsAny(s, " \t\"'<>|*?") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.Contains(s, "://") {
		return false
	}
	if len(s) > 1 && s[1] == ':' {
		return false // C:\…
	}
	return strings.ContainsRune(s, '/') || strings.LastIndexByte(s, '.') > 0
}

// mentionsFile reports whether text names the file p as a whole word: the
// byte before is no part of a path, nor is the byte after (a '.' may end
// a sentence).
func mentionsFile(text, p string) bool {
	pathByte := func(c byte) bool {
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-/@+~%\\", c) >= 0
	}
	for from := 0; ; {
		i := strings.Index(text[from:], p)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(p)
		before := i == 0 || !pathByte(text[i-1]) && text[i-1] != '.'
		after := j == len(text) || !pathByte(text[j]) && (text[j] != '.' || j+1 == len(text) || !pathByte(text[j+1]))
		if before && after {
			return true
		}
		from = i + 1
	}
}
