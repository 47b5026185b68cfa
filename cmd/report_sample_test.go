package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDiffAndReportCountTheSameChains: on the sample's bundles, compact
// diff and compact report give the same number of chains (every chat,
// the one of a single briefing too), and each chain the report draws has
// as many briefings as diff's.
func TestDiffAndReportCountTheSameChains(t *testing.T) {
	dir := t.TempDir()
	ch := reportSample(t, dir)
	code, out, errOut := runIn(t, nil, "diff", ch, "--run", "default-pack", "--json")
	var d struct {
		Chains []struct {
			Chain   string   `json:"chain"`
			Bundles []string `json:"bundles"`
		} `json:"chains"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != 0 {
		t.Fatalf("diff: exit %d, %v\n%s", code, err, errOut)
	}
	code, out, errOut = runIn(t, nil, "diff", ch, "--run", "default-pack", "--stat")
	if code != 0 || !strings.Contains(out, "\n3 chains of 1–4 briefings;") {
		t.Fatalf("diff --stat: exit %d\n%s%s", code, out, errOut)
	}
	page := filepath.Join(dir, "report.html")
	code, out, errOut = runIn(t, nil, "--json", "report", ch, "-o", page)
	var r struct{ Chains int }
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("report: exit %d, %v\n%s", code, err, errOut)
	}
	if len(d.Chains) != 3 || r.Chains != len(d.Chains) {
		t.Fatalf("diff counts %d chains, report %d; want 3 both", len(d.Chains), r.Chains)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	drawn := regexp.MustCompile(`<figure class="chain"><figcaption><b>([^<]+)</b> <span>(\d+) briefings`).FindAllStringSubmatch(string(html), -1)
	single := 0
	for _, c := range d.Chains {
		if len(c.Bundles) == 1 {
			single++
			continue
		}
		found := false
		for _, m := range drawn {
			if strings.HasSuffix(c.Chain, string(filepath.Separator)+m[1]) {
				found = true
				if m[2] != strconv.Itoa(len(c.Bundles)) {
					t.Errorf("chain %s: %s briefings in the report, %d in diff", m[1], m[2], len(c.Bundles))
				}
			}
		}
		if !found {
			t.Errorf("chain %s of %d briefings is not drawn", c.Chain, len(c.Bundles))
		}
	}
	if len(drawn)+single != len(d.Chains) || !strings.Contains(string(html), "1 chain (a chat) of a single briefing is not drawn.") {
		t.Errorf("%d chains drawn and %d of one briefing, of %d", len(drawn), single, len(d.Chains))
	}
}

// TestReportSimulateCaptionsMatchTheCharts renders the Simulate section
// from real `compact simulate --json` files: of --compare alone it draws
// no chart and says so, its caption promising none; with plain runs
// beside, every strategy the caption and legend name is a line of each
// chart, each figure's lines count the dots and crosses drawn, each
// window named is drawn or placed, and the app's dashed lines are there.
func TestReportSimulateCaptionsMatchTheCharts(t *testing.T) {
	dir := t.TempDir()
	ch := reportSample(t, dir)
	sample, _ := filepath.Abs("../examples/stagewise/instances.sqlite")
	simulate := func(name string, args ...string) string {
		code, out, errOut := runIn(t, nil, append([]string{"simulate", "--db", sample, "--context-window", "6000", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("simulate %v: exit %d: %s", args, code, errOut)
		}
		p := filepath.Join(dir, name+".json")
		diffWrite(t, p, out)
		return p
	}
	section := func(args ...string) string {
		page := filepath.Join(dir, "report.html")
		if code, _, errOut := runIn(t, nil, append([]string{"report", "-o", page}, args...)...); code != 0 {
			t.Fatalf("report: exit %d: %s", code, errOut)
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		s := string(html)
		i := strings.Index(s, `<section id="simulate">`)
		if i < 0 {
			t.Fatal("no Simulate section")
		}
		return s[i : i+strings.Index(s[i:], "</section>")]
	}
	const timelines = "Context tokens at every step, one line per strategy; a dot where it compacted (the line drops to what it kept), a cross where a guardrail rejected a compaction; a dashed line where the app compacted the chat"

	compare := simulate("compare", "--compare", "stagewise,onyx,summary-buffer")
	sec := section("--simulate", compare)
	if strings.Contains(sec, "<svg") || strings.Contains(sec, "one line per strategy") || strings.Contains(sec, `class="legend"`) ||
		!strings.Contains(sec, "No chart of the context over the steps: a --compare or --sweep file holds each strategy&#39;s totals over the histories, not the steps") ||
		strings.Count(sec, "<tr><td>") != 3 {
		t.Errorf("--compare alone:\n%s", sec)
	}

	args := []string{ch, "--simulate", compare}
	strategies := []string{"stagewise", "onyx", "summary-buffer"}
	for _, s := range strategies {
		args = append(args, "--simulate", simulate(s, "--strategy", s))
	}
	sec = section(args...)
	if !strings.Contains(sec, timelines) || strings.Contains(sec, "No chart") {
		t.Errorf("with timelines, the caption is not theirs:\n%.600s", sec)
	}
	for _, s := range strategies {
		if !strings.Contains(sec, `<i></i>`+s+`</span>`) {
			t.Errorf("the legend lacks %s", s)
		}
	}
	figures := regexp.MustCompile(`(?s)<figure class="sim">(.*?)</figure>`).FindAllStringSubmatch(sec, -1)
	if len(figures) == 0 {
		t.Fatal("no chart")
	}
	lineRe := regexp.MustCompile(`<li>[^:<]+: (\d+) compactions?, (\d+) rejected;`)
	windowRe := regexp.MustCompile(`, window (\d+)</figcaption>`)
	apps, windows := 0, 0
	for _, f := range figures {
		fig := f[1]
		for _, s := range strategies {
			if !strings.Contains(fig, `<polyline class="ln" points="`) || !regexp.MustCompile(`<polyline class="ln" points="[^"]*"><title>`+s+`</title>`).MatchString(fig) {
				t.Errorf("a chart has no line for %s:\n%.300s", s, fig)
			}
		}
		dots, crosses := 0, 0
		for _, m := range lineRe.FindAllStringSubmatch(fig, -1) {
			n, _ := strconv.Atoi(m[1])
			r, _ := strconv.Atoi(m[2])
			dots, crosses = dots+n, crosses+r
		}
		if got := strings.Count(fig, `<circle class="mk"`); got != dots {
			t.Errorf("a chart draws %d dots, its lines say %d compactions:\n%.300s", got, dots, fig)
		}
		if got := strings.Count(fig, `<path class="rej"`); got != crosses {
			t.Errorf("a chart draws %d crosses, its lines say %d rejected", got, crosses)
		}
		if m := windowRe.FindStringSubmatch(fig); m != nil {
			windows++
			w, _ := strconv.Atoi(m[1])
			label := fmt.Sprintf("window %d", w)
			if w >= 1000 {
				label = fmt.Sprintf("window %d,%03d", w/1000, w%1000)
			}
			if !strings.Contains(fig, `<line class="ref" `) && !strings.Contains(fig, ">"+label+" ↑ above the scale") || !strings.Contains(fig, label) {
				t.Errorf("the caption names %s, the chart neither draws nor places it", label)
			}
		}
		apps += strings.Count(fig, `<line class="app"`)
	}
	if windows == 0 {
		t.Error("no chart's caption names its window")
	}
	if apps == 0 {
		t.Error("the caption promises the app's dashed lines; none is drawn")
	}
}
