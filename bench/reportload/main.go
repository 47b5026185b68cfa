// Command reportload opens a page written by `compact report` in headless
// Chromium and prints how long it took to load, how long the first
// bundle's section took to unpack, and any console error: the figures of
// bench/report.sh. With -shot it also writes a screenshot.
//
//	go run ./bench/reportload -html report.html [-width 1280] [-height 900] [-open 1] [-shot page.png] [-full]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/compactlab/compact/internal/report/headless"
)

func main() {
	page := flag.String("html", "", "the page (required)")
	width := flag.Int("width", 1280, "viewport width in CSS pixels")
	height := flag.Int("height", 900, "viewport height")
	open := flag.Int("open", 1, "open the N-th bundle and time its unpacking (0: none)")
	shot := flag.String("shot", "", "write a PNG screenshot to this file")
	full := flag.Bool("full", false, "screenshot the whole page, not the viewport")
	at := flag.String("at", "", "scroll the element of this CSS selector to the top before the screenshot")
	flag.Parse()
	if *page == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*page, *width, *height, *open, *shot, *full, *at); err != nil {
		fmt.Fprintln(os.Stderr, "reportload:", err)
		os.Exit(1)
	}
}

func run(page string, width, height, open int, shot string, full bool, at string) error {
	bin := headless.Find()
	if bin == "" {
		return fmt.Errorf("no Chromium found (install Debian's chromium, or set COMPACT_CHROMIUM)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b, err := headless.Start(ctx, bin)
	if err != nil {
		return err
	}
	defer b.Close()
	p, err := b.NewPage(ctx, width, height, width < 600)
	if err != nil {
		return err
	}
	url, err := headless.FileURL(page)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := p.Navigate(ctx, url); err != nil {
		return err
	}
	wall := time.Since(start)
	var nav struct {
		DOMContentLoaded float64 `json:"dcl"`
		Load             float64 `json:"load"`
		Bundles          int     `json:"bundles"`
		Bytes            float64 `json:"bytes"`
	}
	if err := p.Eval(ctx, `(() => { const n = performance.getEntriesByType("navigation")[0];
		return {dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, bundles: document.querySelectorAll("details.bundle").length, bytes: n.decodedBodySize}; })()`, &nav); err != nil {
		return err
	}
	out := map[string]any{
		"page": page, "width": width, "wallMs": wall.Milliseconds(),
		"domContentLoadedMs": int(nav.DOMContentLoaded), "loadMs": int(nav.Load), "bundles": nav.Bundles,
	}
	if open > 0 && nav.Bundles >= open {
		var ms float64
		expr := fmt.Sprintf(`new Promise((ok, fail) => {
			const d = document.querySelectorAll("details.bundle")[%d];
			const t0 = performance.now();
			d.open = true;
			const poll = () => d.hasAttribute("data-ready") ? ok(performance.now() - t0) : (performance.now() - t0 > 60000 ? fail(new Error("not unpacked")) : setTimeout(poll, 5));
			poll();
		})`, open-1)
		if err := p.Eval(ctx, expr, &ms); err != nil {
			return err
		}
		out["unpackMs"] = int(ms)
	}
	if at != "" {
		q, _ := json.Marshal(at)
		if err := p.Eval(ctx, fmt.Sprintf(`document.querySelector(%s).scrollIntoView()`, q), nil); err != nil {
			return err
		}
	}
	if shot != "" {
		png, err := p.Screenshot(ctx, full)
		if err != nil {
			return err
		}
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			return err
		}
	}
	out["problems"] = p.Problems()
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
