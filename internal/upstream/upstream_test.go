package upstream

import (
	"regexp"
	"testing"
	"time"
)

// TestReleasesTable: every profile has a unique name and aliases, a full
// commit, a tag, a date, a known generation and host, and the hashes of
// its prompt; each generation has a catalogue.
func TestReleasesTable(t *testing.T) {
	commit, hash := regexp.MustCompile(`^[0-9a-f]{40}$`), regexp.MustCompile(`^[0-9a-f]{64}$`)
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	seen := map[string]bool{}
	for _, r := range Releases {
		for _, n := range append([]string{r.Name}, r.Aliases...) {
			if seen[n] {
				t.Errorf("%s: name %q used twice", r.Name, n)
			}
			seen[n] = true
		}
		if !commit.MatchString(r.Commit) || !hash.MatchString(r.PromptHash) || !hash.MatchString(r.SystemPromptSHA256) ||
			!date.MatchString(r.Date) || r.Tag == "" || r.PromptPath == "" || r.About == "" {
			t.Errorf("%+v", r)
		}
		if _, ok := Catalogs[r.Gen]; !ok {
			t.Errorf("%s: generation %q has no catalogue", r.Name, r.Gen)
		}
		switch {
		case r.Gen == GenE3E && r.Host != HostApp, r.Gen == GenHead && r.Host != HostBrowser && r.Host != HostNone:
			t.Errorf("%s: host %q for generation %s", r.Name, r.Host, r.Gen)
		}
		if got := ByCommit(r.ShortCommit()); len(got) == 0 {
			t.Errorf("%s: not found by its commit", r.Name)
		}
		found := false
		for _, b := range ByPromptHash(r.PromptHash) {
			found = found || b.Name == r.Name
		}
		if !found {
			t.Errorf("%s: not found by its prompt hash", r.Name)
		}
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"e3e": "v1.4.1-nightly20260602c001", "v1.4.1-nightly20260602c001": "v1.4.1-nightly20260602c001",
		"head": "v1.29.0", "v1.29.0": "v1.29.0", "head-nohost": "v1.29.0-nohost",
	} {
		r, err := Lookup(name)
		if err != nil || r.Name != want {
			t.Errorf("%s: %v %v", name, r.Name, err)
		}
	}
	for _, bad := range []string{"", "HEAD", "v1.29", "1.29.0"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if got := Choices(); got != "v1.4.1-nightly20260602c001 (e3e), v1.29.0 (head) or v1.29.0-nohost (head-nohost)" {
		t.Errorf("Choices() = %q", got)
	}
}

// TestCatalogs: the cascades and graces read from history-compression/
// index.ts, and a few windows of available-models.ts, at each commit.
func TestCatalogs(t *testing.T) {
	e3e, head := Catalogs[GenE3E], Catalogs[GenHead]
	if len(e3e.Cascade) != 3 || e3e.Cascade[0] != "gemini-3.1-flash-lite" || e3e.AbortGrace != 0 {
		t.Errorf("e3e: %v %v", e3e.Cascade, e3e.AbortGrace)
	}
	if len(head.Cascade) != 5 || head.Cascade[0] != "default" || head.AbortGrace != 2*time.Second {
		t.Errorf("head: %v %v", head.Cascade, head.AbortGrace)
	}
	for _, c := range []struct {
		cat   Catalog
		model string
		want  int
	}{
		{e3e, "gpt-5.4", 1100000}, {e3e, "gemini-3.1-flash-lite", 1000000}, {e3e, "claude-sonnet-4.6", 200000},
		{e3e, "gpt-5.6-luna", 0}, {e3e, "default", 0},
		{head, "gpt-5.6-luna", 1050000}, {head, "deepseek-v4-flash", 1048576}, {head, "default", 1048576}, {head, "glm-5.1", 202752},
	} {
		if got := c.cat.Windows[c.model]; got != c.want {
			t.Errorf("%s: %d, want %d", c.model, got, c.want)
		}
	}
	if len(e3e.Windows) != 25 || len(head.Windows) != 45 {
		t.Errorf("%d and %d windows, want 25 and 42 models plus 3 aliases", len(e3e.Windows), len(head.Windows))
	}
	for _, id := range head.Cascade {
		if head.Windows[id] == 0 {
			t.Errorf("head cascade model %s has no window", id)
		}
	}
}

func TestWindowLookup(t *testing.T) {
	table, err := WindowTable("head", map[string]int{"qwen3@my-ollama": 32768, "GPT-5.6-Luna": 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model, instance string
		want            int
		ok              bool
	}{
		{"gpt-5.6-luna", "", 5, true}, // the configuration wins
		{"MiniMax-M2", "", 204800, true},
		{"minimax-m2", "stagewise-default", 204800, true},
		{"qwen3", "my-ollama", 32768, true},
		{"qwen3", "other", 0, false},
		{"qwen3", "", 0, false},
		{"", "my-ollama", 0, false},
	} {
		got, ok := LookupWindow(table, c.model, c.instance)
		if got != c.want || ok != c.ok {
			t.Errorf("%s@%s: %d %v, want %d %v", c.model, c.instance, got, ok, c.want, c.ok)
		}
	}
	if _, err := WindowTable("nope", nil); err == nil {
		t.Error("unknown profile accepted")
	}
}
