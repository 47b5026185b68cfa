// Package serialize owns convertAgentMessagesToCompactMessageHistoryString:
// the XML-ish compact history the compression model reads (user and
// assistant turns, one-line tool markers, annotations, slash-command bodies,
// the previous briefing), byte for byte as the upstream writes it, and the
// skills lookup that resolves slash commands.
//
// Upstream versions differ; a Profile holds those differences as data.
package serialize

import "github.com/compactlab/compact/internal/upstream"

// Profile is one upstream version's serializer behaviour.
type Profile struct {
	// Name is the behaviour's key: the generation, and "-nohost" for
	// agent-core without a host.
	Name string
	// EscapeAnnotations escapes the [attached: …] and [mentioned: …] names.
	EscapeAnnotations bool
	// SlashCommands inlines resolved slash-command bodies and rewrites
	// slash links.
	SlashCommands bool
	// Markers maps a tool name (the part type without "tool-") to its
	// marker; a tool not listed gets the generic [tool-X{err}].
	Markers map[string]markerFunc
	// HostMarkers lists the tools whose marker is the host's serializer
	// (agent-core asks host.getToolPartSerializer and calls it inside a
	// try/catch): what throws in it gives the generic [tool-X{err}], not
	// [tool-X: serialization-error].
	HostMarkers map[string]bool
	// OutputOnlyWhenAvailable: every marker sees the part's output only in
	// state output-available (agent-core passes no output otherwise, to
	// its own markers and the host's alike).
	OutputOnlyWhenAvailable bool
}

// coreMarkers are the tools agent-core's serializer writes itself.
var coreMarkers = map[string]markerFunc{
	"read":       markRead,
	"multiEdit":  markMultiEdit,
	"write":      markWrite,
	"copy":       markCopy,
	"delete":     markDelete,
	"grepSearch": markGrep,
	"glob":       markGlob,
}

// appMarkers are the desktop app's other tools: in the e3e serializer
// itself, in agent-core releases the browser host's serializers.
var appMarkers = map[string]markerFunc{
	"createShellSession":    markCreateShellSession,
	"executeShellCommand":   markExecuteShellCommand,
	"executeSandboxJs":      markSandbox,
	"getLintingDiagnostics": markLint,
	"listLibraryDocs":       markDocsSearch,
	"searchInLibraryDocs":   markDocsRead,
	"askUserQuestions":      markAskUser,
}

// browserHostMarkers are the browser host's registry as the serializer
// sees it: the app's tools, the watcher, and what a plain object's
// prototype answers for the name "toString" (Object.prototype.toString,
// which, called on nothing, returns "[object Undefined]"). The prototype's
// other members throw or return no string when called so, which gives
// the generic marker, as a missing entry does.
var browserHostMarkers = merge(appMarkers, map[string]markerFunc{
	"createWatcherSession": markWatcher,
	"toString":             markObjectToString,
})

func merge(ms ...map[string]markerFunc) map[string]markerFunc {
	out := map[string]markerFunc{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func keysOf(m map[string]markerFunc) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// Behaviour keys of the three serializers.
const (
	nameE3E        = upstream.GenE3E
	nameHead       = upstream.GenHead
	nameHeadNoHost = upstream.GenHead + "-nohost"
)

var (
	profE3E = &Profile{
		Name:              nameE3E,
		EscapeAnnotations: true,
		SlashCommands:     true,
		Markers:           merge(coreMarkers, appMarkers),
	}
	profHead = &Profile{
		Name:                    nameHead,
		Markers:                 merge(coreMarkers, browserHostMarkers),
		HostMarkers:             keysOf(browserHostMarkers),
		OutputOnlyWhenAvailable: true,
	}
	profHeadNoHost = &Profile{
		Name:                    nameHeadNoHost,
		Markers:                 coreMarkers,
		OutputOnlyWhenAvailable: true,
	}
)

// Profiles by every profile name and alias of internal/upstream: e3e is
// the reference (stagewise e3e125281a27), head is v1.29.0 with the browser
// host's tool serializers, head-nohost v1.29.0 as its extraction script
// runs it.
var Profiles = func() map[string]*Profile {
	out := map[string]*Profile{}
	for _, r := range upstream.Releases {
		p := profileOf(r)
		out[r.Name] = p
		for _, a := range r.Aliases {
			out[a] = p
		}
	}
	return out
}()

func profileOf(r upstream.Release) *Profile {
	switch {
	case r.Gen == upstream.GenE3E:
		return profE3E
	case r.Host == upstream.HostNone:
		return profHeadNoHost
	}
	return profHead
}

// LookupProfile returns the named profile.
func LookupProfile(name string) (*Profile, error) {
	r, err := upstream.Lookup(name)
	if err != nil {
		return nil, err
	}
	return profileOf(r), nil
}
