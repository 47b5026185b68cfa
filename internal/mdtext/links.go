package mdtext

import "strings"

// PathLink is the briefing's way of naming a file or folder: [](path:p).
// White space and brackets in the path are percent-encoded: a link target
// holds neither.
func PathLink(p string) string { return "[](path:" + linkTarget.Replace(p) + ")" }

var linkTarget = strings.NewReplacer(" ", "%20", "\t", "%09", "\n", "%0A", "\r", "%0D", "\f", "%0C", "\v", "%0B", "(", "%28", ")", "%29")

// LinkPath returns the path a link target names: the rest of a path: or a
// legacy wsfile: target, without a trailing '/', as written (PathLink's
// percent-encoding is not undone). It reports false for any other target
// and for one that names no path.
func LinkPath(target string) (string, bool) {
	var p string
	switch {
	case strings.HasPrefix(target, "path:"):
		p = target[len("path:"):]
	case strings.HasPrefix(target, "wsfile:"):
		p = target[len("wsfile:"):]
	default:
		return "", false
	}
	p = strings.TrimRight(p, "/")
	return p, p != ""
}
