// Package serialize owns convertAgentMessagesToCompactMessageHistoryString:
// the XML-ish compact history the compression model reads (user and
// assistant turns, one-line tool markers, annotations, slash-command bodies,
// the previous briefing), byte for byte as the upstream writes it, and the
// skills lookup that resolves slash commands.
//
// Upstream versions differ; a Profile holds those differences as data.
package serialize

import "fmt"

// Profile is one upstream version's serializer behaviour.
type Profile struct {
	Name string
	// EscapeAnnotations escapes the [attached: …] and [mentioned: …] names.
	EscapeAnnotations bool
	// SlashCommands inlines resolved slash-command bodies and rewrites
	// slash links.
	SlashCommands bool
	// Markers maps a tool name (the part type without "tool-") to its
	// marker; a tool not listed gets the generic [tool-X{err}].
	Markers map[string]markerFunc
	// OutputOnlyWhenAvailable lists tools whose marker sees the part's
	// output only in state output-available (HEAD's host serializers).
	OutputOnlyWhenAvailable map[string]bool
}

var e3eMarkers = map[string]markerFunc{
	"read":                  markRead,
	"multiEdit":             markMultiEdit,
	"write":                 markWrite,
	"copy":                  markCopy,
	"delete":                markDelete,
	"createShellSession":    markCreateShellSession,
	"executeShellCommand":   markExecuteShellCommand,
	"executeSandboxJs":      markSandbox,
	"grepSearch":            markGrep,
	"glob":                  markGlob,
	"getLintingDiagnostics": markLint,
	"listLibraryDocs":       markDocsSearch,
	"searchInLibraryDocs":   markDocsRead,
	"askUserQuestions":      markAskUser,
}

func withWatcher(m map[string]markerFunc) map[string]markerFunc {
	out := map[string]markerFunc{"createWatcherSession": markWatcher}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Profiles by name: e3e is the reference (stagewise e3e125281a27), head is
// v1.29.0 with the browser host's tool serializers.
var Profiles = map[string]*Profile{
	"e3e": {
		Name:              "e3e",
		EscapeAnnotations: true,
		SlashCommands:     true,
		Markers:           e3eMarkers,
	},
	"head": {
		Name:              "head",
		EscapeAnnotations: false,
		SlashCommands:     false,
		Markers:           withWatcher(e3eMarkers),
		OutputOnlyWhenAvailable: map[string]bool{
			"createShellSession": true, "executeShellCommand": true, "executeSandboxJs": true,
			"getLintingDiagnostics": true, "listLibraryDocs": true, "searchInLibraryDocs": true,
			"askUserQuestions": true, "createWatcherSession": true,
		},
	},
}

// LookupProfile returns the named profile.
func LookupProfile(name string) (*Profile, error) {
	if p, ok := Profiles[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown profile %q (want e3e or head)", name)
}
