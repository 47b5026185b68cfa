package report

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeFile writes text to path, making its directory.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeBundle writes a bundle with the app's briefing a, the history and one
// replay per run (name → briefing).
func writeBundle(t *testing.T, dir, history, a string, runs map[string]string) {
	t.Helper()
	writeFile(t, filepath.Join(dir, "actual-output.md"), a)
	writeFile(t, filepath.Join(dir, "compact-history.xml"), history)
	// What the session did next: back to the files of the history.
	writeFile(t, filepath.Join(dir, "continuation.xml"), "<assistant>[read: w1/src/Button.css]\n[edited: w1/src/Button.tsx (1 edits)]</assistant>")
	writeFile(t, filepath.Join(dir, "metadata.json"), `{"chatId": "chat-1", "compressionNumber": 1, "boundaryMessageIndex": 4, "slashIdsResolved": []}`)
	for run, text := range runs {
		writeFile(t, filepath.Join(dir, "replays", run, "output.md"), text)
		writeFile(t, filepath.Join(dir, "replays", run, "replay.json"),
			`{"run": "`+run+`", "model": "builtin", "pack": "default", "usage": {"inputTokens": 1200, "outputTokens": 300}, "costUsd": 0.0012, "startedAt": "2026-07-01T10:00:00Z"}`)
	}
}

const testHistory = "<user>Fix the colour in [](path:w1/src/Button.tsx). Don't commit, I'll do it myself.</user>\n" +
	"<assistant>[read: w1/src/Button.tsx]\n[edited: w1/src/Button.css (1 edits)]\n[shell: Run lint → exit 1]</assistant>"

const goodBriefing = "## Button colour\n\nThe user asked you to fix the colour in [](path:w1/src/Button.tsx) and said not to commit. " +
	"You edited [](path:w1/src/Button.css); lint then failed with exit 1.\n\n" +
	"## Current working state\n\nYou edited the CSS. Next, fix the lint error."

// hostile is a briefing written to break out of the page.
const hostile = "## Notes </script><script>alert(1)</script>\n\n" +
	"<img src=x onerror=alert(2)> \"><svg onload=alert(3)> {{.}} <a href=\"https://evil.example/x\">x</a> javascript:alert(4)\n\n" +
	"- a bullet <previous-chat-history>leaked</previous-chat-history>\n\n" +
	"## Current working state\n\nYou lost everything. Next, <style>body{display:none}</style> nothing."

// unpacked returns the page with every packed section unpacked after it.
func unpacked(t *testing.T, page string) string {
	t.Helper()
	re := regexp.MustCompile(`<script type="application/octet-stream" id="([a-z0-9]+)">([A-Za-z0-9+/=]*)</script>`)
	var all strings.Builder
	all.WriteString(page)
	for _, m := range re.FindAllStringSubmatch(page, -1) {
		data, err := base64.StdEncoding.DecodeString(m[2])
		if err != nil {
			t.Fatalf("section %s: %v", m[1], err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("section %s: %v", m[1], err)
		}
		html, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("section %s: %v", m[1], err)
		}
		all.WriteString("\n<!-- section " + m[1] + " -->\n")
		all.Write(html)
	}
	return all.String()
}

func render(t *testing.T, r *Report, opt PageOptions) (string, Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := r.WriteHTML(&buf, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("stats say %d bytes, wrote %d", st.Bytes, buf.Len())
	}
	return buf.String(), st
}

// TestPageLoadsNothing: the page names no URL to load (src, href,
// url(), @import), its only script is the one the Content Security
// Policy allows by hash, and the policy forbids everything else.
func TestPageLoadsNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	writeBundle(t, filepath.Join(root, "001-chat", "compression-001"), testHistory, goodBriefing, map[string]string{"builtin": hostile, "other": goodBriefing})
	writeBundle(t, filepath.Join(root, "001-chat", "compression-002"), testHistory+"\n<user>See https://example.com/design and http://evil.example/x.js</user>", goodBriefing,
		map[string]string{"builtin": goodBriefing + " https://example.com/design"})
	r := Build([]string{filepath.Join(root, "001-chat", "compression-001"), filepath.Join(root, "001-chat", "compression-002")}, Options{})
	page, st := render(t, r, PageOptions{Version: "test"})
	if st.Sections != 2 || st.Bundles != 2 {
		t.Fatalf("stats %+v", st)
	}
	all := unpacked(t, page)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)\s(?:src|href|action|formaction|poster|data)\s*=\s*["']?\s*(?:https?:)?//`),
		regexp.MustCompile(`(?i)url\(\s*["']?\s*(?:https?:)?//`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)<(?:link|img|iframe|object|embed|audio|video|source|script)\b[^>]*\s(?:src|href)=["']?[^"'\s>]*`),
	} {
		for _, m := range re.FindAllString(all, -1) {
			if m != `<link rel="icon" href="data:,` {
				t.Errorf("the page loads something: %q", m)
			}
		}
	}
	scripts := regexp.MustCompile(`(?s)<script( [^>]*)?>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	var code []string
	for _, s := range scripts {
		if !strings.Contains(s[1], `type="application/octet-stream"`) {
			code = append(code, s[2])
		}
	}
	if len(code) != 1 {
		t.Fatalf("%d executable scripts, want 1", len(code))
	}
	sum := sha256.Sum256([]byte(code[0]))
	policy := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if policy == nil {
		t.Fatal("no Content Security Policy")
	}
	want := "default-src &#39;none&#39;; style-src &#39;unsafe-inline&#39;; img-src data:; script-src &#39;sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "&#39;"
	if html.UnescapeString(policy[1]) != html.UnescapeString(want) {
		t.Errorf("policy %q, want %q", policy[1], want)
	}
	// The URLs of the briefings are text.
	if !strings.Contains(all, "https://example.com/design") {
		t.Error("the briefing's URL is not shown as text")
	}
}

// TestHostileTextIsEscaped: briefings, histories, bundle names, chat ids
// and simulate titles are text wherever they land, in the page and in its
// packed sections.
func TestHostileTextIsEscaped(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	dir := filepath.Join(root, `002-<b>"x'`, "compression-001")
	writeBundle(t, dir, testHistory+"\n<user>"+hostile+"</user>", hostile, map[string]string{`run"><script>alert(5)</script>`: hostile + " more"})
	writeFile(t, filepath.Join(dir, "metadata.json"), `{"chatId": "</script><script>alert(6)</script>", "compressionNumber": 1, "boundaryMessageIndex": 1}`)
	simFile := filepath.Join(t.TempDir(), "sim.json")
	writeFile(t, simFile, `{"strategy": "stagewise", "summarizer": "builtin", "histories": [{"source": "jsonl", "name": "</script><script>alert(7)</script>", "title": "<svg onload=alert(8)>",
		"messages": 3, "contextWindow": 100, "origin": [0, 1, 2], "problems": [], "timeline": {"strategy": "stag</text><script>alert(9)</script>", "steps": [
		{"step": 1, "index": 1, "id": "a", "contextTokens": 50, "fired": false, "boundary": -1, "keptVerbatim": 2, "summaryChars": 0, "afterTokens": 50},
		{"step": 2, "index": 2, "id": "b", "contextTokens": 90, "fired": true, "boundary": 2, "keptVerbatim": 1, "summaryChars": 10, "afterTokens": 40, "compacted": 1}],
		"compactions": 1, "summarizerCalls": 1, "rejected": 0, "tokensSent": 140, "peakContext": 90, "keptVerbatimAtEnd": 1}, "retention": null, "probes": null, "summaries": []}]}`)
	sim, err := ReadSimulation(simFile)
	if err != nil {
		t.Fatal(err)
	}
	r := Build([]string{dir}, Options{})
	r.Sims = []*Simulation{sim}
	page, _ := render(t, r, PageOptions{Title: "<i>title</i>"})
	all := unpacked(t, page)
	for _, bad := range []string{"<script>alert", "<img src", "<svg onload", "<style>body", "<b>\"x", "<a href=\"https://evil", "<i>title</i>", "<previous-chat-history>"} {
		if strings.Contains(all, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "{{.}}", "&lt;i&gt;title&lt;/i&gt;"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page lacks the escaped %q", want)
		}
	}
	// The leak is marked where it is.
	if !strings.Contains(all, `<span class="leak" title="an XML tag: the prompt&#39;s rules forbid them">&lt;previous-chat-history&gt;</span>`) {
		t.Error("the leaked tag is not marked")
	}
}

// TestBundlesWorstFirst: the bundle whose run loses the most probes
// against the baseline comes first.
func TestBundlesWorstFirst(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	good := filepath.Join(root, "001-a", "compression-001")
	bad := filepath.Join(root, "002-b", "compression-001")
	writeBundle(t, good, testHistory, goodBriefing, map[string]string{"run": goodBriefing})
	writeBundle(t, bad, testHistory, goodBriefing, map[string]string{"run": "## Nothing\n\nNothing kept. Next, nothing."})
	r := Build([]string{good, bad}, Options{})
	if len(r.Bundles) != 2 || r.Bundles[0].Dir != bad {
		t.Fatalf("order: %v", []string{r.Bundles[0].Dir, r.Bundles[1].Dir})
	}
	if r.Bundles[0].Drop >= 0 || len(r.Names) != 2 || r.Names[0] != "actual" || r.Baseline != "actual" {
		t.Errorf("drop %v, names %v, baseline %q", r.Bundles[0].Drop, r.Names, r.Baseline)
	}
	if r.Eval == nil || len(r.Eval.Sides) != 2 {
		t.Fatalf("eval %+v", r.Eval)
	}
	page, _ := render(t, r, PageOptions{})
	if i, j := strings.Index(page, `data-name="002-b/compression-001"`), strings.Index(page, `data-name="001-a/compression-001"`); i < 0 || j < 0 || i > j {
		t.Errorf("the worse bundle is not listed first (%d, %d)", i, j)
	}
}

// TestMaxBytesLeavesOutTheBestSections: past the size limit the last
// (best) bundles lose their sections, and say so.
func TestMaxBytesLeavesOutTheBestSections(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	var dirs []string
	long := strings.Repeat("You read [](path:w1/src/Button.tsx) again and again, each time noting a new detail number 12345. ", 1000)
	for i := range 6 {
		d := filepath.Join(root, "001-chat", "compression-00"+string(rune('1'+i)))
		writeBundle(t, d, testHistory, "## Long\n\n"+long, map[string]string{"run": "## Long\n\n" + long + " Extra."})
		dirs = append(dirs, d)
	}
	r := Build(dirs, Options{})
	_, all := render(t, r, PageOptions{})
	page, st := render(t, r, PageOptions{MaxBytes: all.Bytes/2 + 400_000})
	if st.LeftOut == 0 || st.Sections == 0 || st.Sections+st.LeftOut != 6 {
		t.Fatalf("stats %+v (the whole page is %d bytes)", st, all.Bytes)
	}
	if st.Bytes > all.Bytes/2+400_000 {
		t.Errorf("page of %d bytes over its limit %d", st.Bytes, all.Bytes/2+400_000)
	}
	last := r.Bundles[len(r.Bundles)-1]
	if !strings.Contains(page, "compact diff "+last.Dir) || !strings.Contains(page, "have no section in this page") {
		t.Error("the page does not say which sections it left out")
	}
}

// TestSectionDiffMarks: a reworded sentence is marked word by word, a
// dropped one whole; a broken rule marks its line; a kept section is
// unmarked.
func TestSectionDiffMarks(t *testing.T) {
	a := "## Kept\n\nSame text here.\n\n## Changed\n\nYou edited the red button. You also ran the tests.\n\n## Gone\n\nOnly in A."
	b := "## Kept\n\nSame text here.\n\n## Changed\n\nYou edited the teal button.\n\n- a bullet\n\n## New\n\nOnly in B."
	root := filepath.Join(t.TempDir(), "prerelease")
	d := filepath.Join(root, "001-chat", "compression-001")
	writeBundle(t, d, testHistory, a, map[string]string{"run": b})
	r := Build([]string{d}, Options{Profile: "head"})
	all := unpacked(t, func() string { p, _ := render(t, r, PageOptions{}); return p }())
	for _, want := range []string{
		`<span class="del">red</span>`,
		`<span class="ins">teal</span>`,
		`<span class="del">You also ran the tests.</span>`,
		`<div class="sec kept">`,
		`<div class="sec only-a">`,
		`<div class="sec only-b">`,
		`<div class="l viol" data-n="9" title="bullet: - a bullet"><span class="rb">bullet</span>`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the section lacks %s", want)
		}
	}
	if strings.Contains(all, `<span class="del">Same text here.</span>`) {
		t.Error("a kept sentence is marked")
	}
}

// TestReadSimulation reads the three shapes of `compact simulate --json`
// and refuses other JSON.
func TestReadSimulation(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		json string
		ok   func(*Simulation) bool
	}{
		"timelines": {`{"strategy": "onyx", "summarizer": "builtin", "histories": []}`, func(s *Simulation) bool { return s.Timelines != nil && s.Timelines.Strategy == "onyx" }},
		"compare":   {`{"summarizer": "builtin", "histories": ["a"], "rows": [{"strategy": "stagewise", "chats": 1}]}`, func(s *Simulation) bool { return s.Rows != nil && len(s.Rows.Rows) == 1 }},
		"sweep":     {`{"knob": "threshold", "values": [0.5], "summarizer": "builtin", "histories": [], "rows": []}`, func(s *Simulation) bool { return s.Rows != nil && s.Rows.Knob == "threshold" }},
		"recorded":  {`{"chats": [{"chat": "c", "matches": [{"message": 4, "step": 3}], "misses": [], "extra": []}]}`, func(s *Simulation) bool { return len(s.Recorded) == 1 }},
		"sessions":  {`{"strategies": ["stagewise"], "summarizer": "builtin", "sessions": [{"name": "s.jsonl", "recorded": [{"step": 8}], "strategies": [{"strategy": "stagewise", "compactions": [{"step": 6}]}]}]}`, func(s *Simulation) bool { return len(s.Sessions) == 1 && s.Sessions[0].Recorded[0].Step == 8 }},
	} {
		p := filepath.Join(dir, name+".json")
		writeFile(t, p, tc.json)
		s, err := ReadSimulation(p)
		if err != nil || !tc.ok(s) {
			t.Errorf("%s: %v, %+v", name, err, s)
		}
	}
	for name, text := range map[string]string{"other": `{"comparisons": []}`, "broken": `{"strategy": `, "array": `[1]`} {
		p := filepath.Join(dir, name+".json")
		writeFile(t, p, text)
		if _, err := ReadSimulation(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// TestJudgedScoresAndLoneBriefings: the judge's records add a row and a
// chart; a bundle without a replay shows the app's briefing alone.
func TestJudgedScoresAndLoneBriefings(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	judged := filepath.Join(root, "001-chat", "compression-001")
	alone := filepath.Join(root, "002-chat", "compression-001")
	writeBundle(t, judged, testHistory, goodBriefing, map[string]string{"run": goodBriefing})
	writeBundle(t, alone, testHistory, goodBriefing+"\n\n- a bullet", nil)
	writeFile(t, filepath.Join(judged, "judge", "gpt-5.4-nano.json"), `{"judge": "gpt-5.4-nano", "pack": "default", "packHash": "x", "questions": [], "order": ["actual", "run"],
		"briefings": [{"name": "actual", "score": 4.5, "dimensions": {"accuracy": 4.5, "context_awareness": 4, "artifact_trail": 5, "completeness": 4.5, "continuity": 4.5, "instruction_following": 4.5}, "kinds": {}, "ungraded": 0, "answers": []},
		{"name": "run", "score": 3.25, "dimensions": {"accuracy": 3, "context_awareness": 3, "artifact_trail": 3.5, "completeness": 3.5, "continuity": 3, "instruction_following": 3.5}, "kinds": {}, "ungraded": 0, "answers": []}],
		"calls": [], "costUsd": 0.002, "savedUsd": 0}`)
	r := Build([]string{judged, alone}, Options{})
	if len(r.Judges) != 1 || r.Judges[0] != "gpt-5.4-nano" {
		t.Fatalf("judges %v", r.Judges)
	}
	page, _ := render(t, r, PageOptions{})
	all := unpacked(t, page)
	for _, want := range []string{">judged score</th>", `aria-label="judged scores by dimension"`, ">4.50</td>", ">3.25</td>",
		"actual (no replay to compare with)", `<div class="l viol" data-n="9" title="bullet: - a bullet"><span class="rb">bullet</span>- a bullet</div>`} {
		if !strings.Contains(all, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestSimulateChartMarksWhereTheAppAndTheAgentCompacted: a strategy's
// compactions are dots on its line; the app's (from the bundles) and an
// agent's (from --against-recorded) are dashed lines; an agent's live
// usage is a line of its own.
func TestSimulateChartMarksWhereTheAppAndTheAgentCompacted(t *testing.T) {
	dir := t.TempDir()
	steps := `[{"step": 1, "index": 1, "id": "a", "contextTokens": 50, "boundary": -1, "afterTokens": 50},
		{"step": 2, "index": 3, "id": "b", "contextTokens": 90, "fired": true, "boundary": 2, "afterTokens": 40, "compacted": 2},
		{"step": 3, "index": 5, "id": "c", "contextTokens": 70, "boundary": -1, "afterTokens": 70}]`
	tl := filepath.Join(dir, "tl.json")
	writeFile(t, tl, `{"strategy": "stagewise", "summarizer": "builtin", "histories": [
		{"source": "stagewise", "name": "chat-1", "messages": 6, "contextWindow": 100, "origin": [0, 1, 2, 3, 4, 5], "timeline": {"strategy": "stagewise", "steps": `+steps+`}},
		{"source": "claude-code", "name": "s.jsonl", "messages": 6, "contextWindow": 100, "origin": [0, 1, 2, 3, 4, 5], "liveTokens": [60, 95, 30], "timeline": {"strategy": "stagewise", "steps": `+steps+`}}]}`)
	rec := filepath.Join(dir, "rec.json")
	writeFile(t, rec, `{"sessions": [{"name": "s.jsonl", "source": "claude-code", "steps": 3, "recorded": [{"step": 2, "preTokens": 95}], "strategies": [{"strategy": "stagewise", "compactions": [{"step": 2}]}]}]}`)
	var sims []*Simulation
	for _, p := range []string{tl, rec} {
		s, err := ReadSimulation(p)
		if err != nil {
			t.Fatal(err)
		}
		sims = append(sims, s)
	}
	v := simulationView(sims, map[string][]int{"chat-1": {3}})
	if len(v.Histories) != 2 || !v.HasApp || !v.HasAgent || len(v.Recorded) != 1 || !v.Recorded[0].Agents {
		t.Fatalf("view %+v", v)
	}
	app, agent := string(v.Histories[0].Chart), string(v.Histories[1].Chart)
	for _, c := range []struct {
		chart, want string
		n           int
	}{
		{app, `<circle class="mk"`, 1},
		{app, `<line class="app"`, 1},
		{app, `message 3 summarized`, 2},
		{agent, `<line class="app"`, 1},
		{agent, `the agent compacted after step 2 (its compaction 1, at 95 tokens)`, 2},
		{agent, `<g class="live">`, 1},
	} {
		if n := strings.Count(c.chart, c.want); n != c.n {
			t.Errorf("%d of %q, want %d", n, c.want, c.n)
		}
	}
}

// TestBuildStops: an interrupt stops handing out bundles; what was not
// read is left out, not reported as broken.
func TestBuildStops(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	var dirs []string
	for i := range 4 {
		d := filepath.Join(root, "001-chat", "compression-00"+string(rune('1'+i)))
		writeBundle(t, d, testHistory, goodBriefing, map[string]string{"run": goodBriefing})
		dirs = append(dirs, d)
	}
	n := 0
	r := Build(dirs, Options{Jobs: 1, Stop: func() bool { n++; return n > 2 }})
	if len(r.Bundles) == 0 || len(r.Bundles) == 4 || len(r.Errors) != 0 {
		t.Errorf("%d bundles read, %d errors", len(r.Bundles), len(r.Errors))
	}
}
