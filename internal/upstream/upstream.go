// Package upstream owns what compact knows of the stagewise releases it
// reproduces: the profiles, each named after a release and recording the
// release's tag, commit, date and the hash of its compression prompt
// (prompt.ts as `compact prompt import` reads it), the generation of
// behaviour each belongs to (the key the serializer, estimator, boundary
// walk, briefing and rule tables are indexed by), the serializer host, and
// each generation's model catalogue: the compression cascade, the context
// windows by model and the abort grace (catalog.go).
//
// It holds data only and imports nothing of compact: every layer looks a
// user's --profile up here.
package upstream

import (
	"fmt"
	"slices"
	"strings"
)

// Generations: the behaviour keys of the per-package tables. A release
// whose behaviour matches an existing generation is one more row of
// Releases; one that changes behaviour adds a generation.
const (
	// GenE3E is the code of the apps/browser layout (stagewise 1.4, the
	// reference the conformance corpus was made with).
	GenE3E = "e3e"
	// GenHead is the agent-core code of stagewise 1.29.
	GenHead = "head"
)

// Serializer hosts: what convertAgentMessagesToCompactMessageHistoryString
// is given for the tools it does not know itself (agent-core releases).
const (
	// HostApp: the serializer has no host; every tool marker is its own
	// (the apps/browser releases).
	HostApp = "app"
	// HostBrowser: the desktop app's host, whose tool-part serializers
	// write the shell, sandbox, lint, docs, ask-user and watcher markers
	// (what the model saw live).
	HostBrowser = "browser"
	// HostNone: no host, as the release's extraction script passes none:
	// those tools get the generic [tool-X] marker.
	HostNone = "none"
)

// Release is one profile: an upstream release and the variant of it
// compact reproduces.
type Release struct {
	// Name is the profile's name: "v" and the release version (plus
	// "-nohost" for the variant without a host).
	Name string
	// Aliases are older names that still select it.
	Aliases []string
	// Tag is the upstream git tag on Commit.
	Tag string
	// Commit is the upstream commit (40 hex digits).
	Commit string
	// Date is the commit's date (YYYY-MM-DD).
	Date string
	// Gen is the behaviour generation (GenE3E, GenHead).
	Gen string
	// Host is the serializer host (HostApp, HostBrowser, HostNone).
	Host string
	// PromptPath is the path of prompt.ts at Commit.
	PromptPath string
	// PromptHash is the hash `compact prompt import` prints for that
	// prompt.ts (sha256 of the pack it makes: prompt.Pack.Hash).
	PromptHash string
	// SystemPromptSHA256 is the sha256 of its system prompt text.
	SystemPromptSHA256 string
	// About says in a few words what the profile reproduces.
	About string
}

const (
	promptE3E  = "apps/browser/src/backend/agents/shared/base-agent/history-compression/prompt.ts"
	promptCore = "packages/agent-core/src/agents/shared/history-compression/prompt.ts"
)

// Releases are the profiles, oldest first. The prompt hashes were made
// with `compact prompt import` of each commit's prompt.ts (stagewise is
// AGPL-3.0: its files are not copied here, only their hashes;
// TestReleasePromptHashes checks them against a stagewise clone named by
// COMPACT_UPSTREAM_GIT).
var Releases = []Release{
	{
		Name:    "v1.4.1-nightly20260602c001",
		Aliases: []string{GenE3E},
		Tag:     "stagewise@1.4.1-nightly20260602c001",
		Commit:  "e3e125281a271643edcd6e40fa74f15646a22873",
		Date:    "2026-06-01",
		Gen:     GenE3E, Host: HostApp,
		PromptPath:         promptE3E,
		PromptHash:         "263414cd24bd5501ce011066778c0981e7c5034b14c44ab7b5229b642cd954e9",
		SystemPromptSHA256: "3db5bd8472dcae206067a07e4bd36511a89fe51d74fcecfc042e84ecb6e4d00f",
		About:              "the reference the bundles match; its compression code is that of release 1.4.0",
	},
	{
		Name:    "v1.29.0",
		Aliases: []string{GenHead},
		Tag:     "stagewise@1.29.0",
		Commit:  "18ac8a27b18c5de4e2d76d03b515cf10186631ca",
		Date:    "2026-08-15",
		Gen:     GenHead, Host: HostBrowser,
		PromptPath:         promptCore,
		PromptHash:         "a5e06f3dd4c9f364b4026cf4fe181d0da446a1bbf49cad2ae896e4c5df52d7fc",
		SystemPromptSHA256: "753b8e2762df0583b4a1b22ced2a56d92d28a8bb8f6db8433c7eba76fb7250bf",
		About:              "the app's serializer, with its browser host",
	},
	{
		Name:    "v1.29.0-nohost",
		Aliases: []string{"head-nohost"},
		Tag:     "stagewise@1.29.0",
		Commit:  "18ac8a27b18c5de4e2d76d03b515cf10186631ca",
		Date:    "2026-08-15",
		Gen:     GenHead, Host: HostNone,
		PromptPath:         promptCore,
		PromptHash:         "a5e06f3dd4c9f364b4026cf4fe181d0da446a1bbf49cad2ae896e4c5df52d7fc",
		SystemPromptSHA256: "753b8e2762df0583b4a1b22ced2a56d92d28a8bb8f6db8433c7eba76fb7250bf",
		About:              "its extraction script as shipped: no host, generic markers for the app's tools",
	},
}

// Default is the profile used when none is given.
const Default = GenE3E

// Lookup finds a release by name or alias.
func Lookup(name string) (Release, error) {
	for _, r := range Releases {
		if r.Name == name || slices.Contains(r.Aliases, name) {
			return r, nil
		}
	}
	return Release{}, fmt.Errorf("unknown profile %q (want %s)", name, Choices())
}

// MustLookup is Lookup for names known to exist.
func MustLookup(name string) Release {
	r, err := Lookup(name)
	if err != nil {
		panic(err)
	}
	return r
}

// Gen returns the generation of the named profile.
func Gen(name string) (string, error) {
	r, err := Lookup(name)
	return r.Gen, err
}

// Names lists every name and alias, releases first (for completion).
func Names() []string {
	var out []string
	for _, r := range Releases {
		out = append(out, r.Name)
	}
	for _, r := range Releases {
		out = append(out, r.Aliases...)
	}
	return out
}

// Choices says the names in a few words: "v1.4.1-… (e3e), v1.29.0
// (head) or v1.29.0-nohost (head-nohost)".
func Choices() string {
	var parts []string
	for _, r := range Releases {
		s := r.Name
		if len(r.Aliases) > 0 {
			s += " (" + strings.Join(r.Aliases, ", ") + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// ShortCommit is the commit's first 9 digits, as git prints it.
func (r Release) ShortCommit() string {
	if len(r.Commit) < 9 {
		return r.Commit
	}
	return r.Commit[:9]
}

// ByCommit lists the releases recorded at commit (a prefix of at least 7
// digits), in table order.
func ByCommit(commit string) []Release {
	var out []Release
	if len(commit) < 7 {
		return nil
	}
	for _, r := range Releases {
		if strings.HasPrefix(r.Commit, strings.ToLower(commit)) {
			out = append(out, r)
		}
	}
	return out
}

// ByPromptHash lists the releases whose prompt.ts imports to hash.
func ByPromptHash(hash string) []Release {
	var out []Release
	for _, r := range Releases {
		if r.PromptHash != "" && r.PromptHash == hash {
			out = append(out, r)
		}
	}
	return out
}
