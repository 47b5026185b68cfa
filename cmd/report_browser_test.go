package cmd

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/report/headless"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "rewrite docs/report.png from TestReportInBrowser")

// TestReportInBrowser looks at the sample database's report as a person
// would: in headless Chromium at a desktop and a phone's width, with no
// console error, no exception, nothing loaded, the key parts present,
// nothing wider than the screen and every run name of a table header
// shown whole; it opens the worst bundle and filters
// the list. It skips when there is no Chromium (.ci/run installs
// Debian's). The screenshots are written to the test's directory; with
// -update-screenshot the desktop one replaces docs/report.png.
func TestReportInBrowser(t *testing.T) {
	bin := headless.Find()
	if bin == "" {
		t.Skip("no Chromium: this test renders the report in a headless browser; install Debian's chromium (apt-get install chromium, as .ci/run does) or set COMPACT_CHROMIUM to a Chrome or Chromium binary")
	}
	dir := t.TempDir()
	reportSample(t, dir)
	sample, _ := filepath.Abs("../examples/stagewise/instances.sqlite")
	docs, _ := filepath.Abs(filepath.Join("..", "docs"))
	t.Chdir(dir) // the page names its bundles as given: relative
	args := []string{"report", "prerelease", "-o", "report.html", "--title", "compact report: the sample database"}
	for _, s := range []string{"stagewise", "onyx", "summary-buffer"} {
		code, out, errOut := runIn(t, nil, "simulate", "--db", sample, "--strategy", s, "--context-window", "6000", "--json")
		if code != 0 {
			t.Fatalf("simulate %s: exit %d: %s", s, code, errOut)
		}
		p := "simulate-" + s + ".json"
		diffWrite(t, p, out)
		args = append(args, "--simulate", p)
	}
	if code, _, errOut := runIn(t, nil, args...); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	url, err := headless.FileURL(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := headless.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"desktop", 1280, 1400, false}, {"narrow", 390, 844, true}} {
		t.Run(vp.name, func(t *testing.T) {
			p, err := b.NewPage(ctx, vp.width, vp.height, vp.mobile)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Navigate(ctx, url); err != nil {
				t.Fatal(err)
			}
			var page struct {
				Title     string `json:"title"`
				Runs      int    `json:"runs"`
				Charts    int    `json:"charts"`
				Bundles   int    `json:"bundles"`
				Chains    int    `json:"chains"`
				Sims      int    `json:"sims"`
				AppMarks  int    `json:"appMarks"`
				Resources int    `json:"resources"`
				Overflow  int    `json:"overflow"`
				Width     int    `json:"width"`
				// Cut: run names of a table header not shown whole.
				Cut int `json:"cut"`
			}
			pageEval(ctx, t, p, `({
				title: document.title,
				runs: document.querySelectorAll("#overview table.runs thead th").length,
				charts: document.querySelectorAll("#overview svg.chart").length,
				bundles: document.querySelectorAll("#bundles details.bundle").length,
				chains: document.querySelectorAll("#chains figure.chain svg.chart").length,
				sims: document.querySelectorAll("#simulate figure.sim svg.chart").length,
				appMarks: document.querySelectorAll("#simulate line.app").length,
				resources: performance.getEntriesByType("resource").length,
				overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
				width: innerWidth,
				cut: [...document.querySelectorAll(".bhead .sc, #overview table.runs thead th")].filter(e => e.offsetParent &&
					(e.scrollWidth > e.clientWidth || e.textContent !== e.title && e.title !== "")).length,
			})`, &page)
			want := page
			want.Title, want.Runs, want.Charts, want.Bundles, want.Chains, want.Sims, want.Resources, want.Overflow, want.Width =
				"compact report: the sample database", 4, 3, 7, 4, 6, 0, 0, vp.width
			want.Cut = 0
			if page != want || page.AppMarks == 0 {
				t.Errorf("page %+v\nwant %+v (and app marks)", page, want)
			}

			// Open the worst bundle: its section unpacks, A and B side by
			// side with the section diff, the probes, the history.
			var sec struct {
				Sections int  `json:"sections"`
				Marks    int  `json:"marks"`
				Probes   int  `json:"probes"`
				Lost     int  `json:"lost"`
				History  bool `json:"history"`
				SideA    int  `json:"sideA"`
				Overflow int  `json:"overflow"`
			}
			pageEval(ctx, t, p, `new Promise((ok, fail) => {
				const d = document.querySelector("details.bundle");
				d.open = true;
				const t0 = Date.now();
				const poll = () => {
					if (d.hasAttribute("data-ready")) {
						d.scrollIntoView();
						return ok({
							sections: d.querySelectorAll(".sbs .sec").length,
							marks: d.querySelectorAll(".sbs .del, .sbs .ins").length,
							probes: d.querySelectorAll("table.probes tbody tr").length,
							lost: d.querySelectorAll("table.probes td.no").length,
							history: !!d.querySelector("details.history pre"),
							sideA: Math.round(d.querySelector(".cell.a").getBoundingClientRect().width),
							overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
						});
					}
					if (Date.now() - t0 > 20000) return fail(new Error("the section did not unpack"));
					setTimeout(poll, 10);
				};
				poll();
			})`, &sec)
			if sec.Sections == 0 || sec.Marks == 0 || sec.Probes == 0 || sec.Lost == 0 || !sec.History || sec.Overflow != 0 {
				t.Errorf("the worst bundle's section: %+v", sec)
			}
			if vp.mobile && sec.SideA < vp.width/2 || !vp.mobile && sec.SideA > vp.width/2 {
				t.Errorf("side A is %d px wide at %d px: A and B should stack only on a narrow screen", sec.SideA, vp.width)
			}

			// The filter hides what does not match.
			var shown int
			pageEval(ctx, t, p, `(() => { const f = document.getElementById("filter"); f.value = "003-fix"; f.dispatchEvent(new Event("input"));
				return [...document.querySelectorAll("details.bundle")].filter(d => !d.hidden).length; })()`, &shown)
			if shown != 1 {
				t.Errorf("the filter shows %d bundles, want 1", shown)
			}
			pageEval(ctx, t, p, `(() => { const f = document.getElementById("filter"); f.value = ""; f.dispatchEvent(new Event("input")); window.scrollTo(0, 0); return 0; })()`, nil)

			png, err := p.Screenshot(ctx, false)
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(dir, "report-"+vp.name+".png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s (%d bytes)", shot, len(png))
			if *updateScreenshot && vp.name == "desktop" {
				if err := os.WriteFile(filepath.Join(docs, "report.png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if probs := p.Problems(); len(probs) > 0 {
				t.Errorf("the browser reported:\n%s", strings.Join(probs, "\n"))
			}
		})
	}
}

func pageEval(ctx context.Context, t *testing.T, p *headless.Page, expr string, out any) {
	t.Helper()
	if err := p.Eval(ctx, expr, out); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() && out != nil {
		b, _ := json.Marshal(out)
		t.Log(fmt.Sprintf("%.300s", b))
	}
}
