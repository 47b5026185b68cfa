package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The charts are small inline SVGs computed here: no script draws them.
// Every text in them is escaped (html.EscapeString); colours come from the
// page's stylesheet through the series classes s0, s1, ….

// svg accumulates one chart.
type svg struct{ b strings.Builder }

func (s *svg) f(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

// open starts a chart of w by h units that scales to its container; label
// is its accessible name.
func (s *svg) open(w, h float64, class, label string) {
	s.f(`<svg class="chart %s" viewBox="0 0 %s %s" role="img" aria-label="%s" preserveAspectRatio="xMinYMin meet">`,
		class, num(w), num(h), esc(label))
	s.f(`<title>%s</title>`, esc(label))
}

func (s *svg) html() template.HTML {
	s.b.WriteString("</svg>")
	return template.HTML(s.b.String()) // every text in it went through esc
}

func esc(s string) string { return html.EscapeString(s) }

// num writes a coordinate with at most one decimal.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

// seriesClass is the colour class of the i-th series.
func seriesClass(i int) string { return "s" + strconv.Itoa(i%8) }

// niceTicks are about n round values from 0 (or lo) to at least hi.
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	start := math.Floor(lo/step) * step
	var out []float64
	for v := start; v <= hi+step*0.999; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// frame is a plot area inside a chart with its axes' ranges.
type frame struct {
	x0, y0, w, h           float64 // plot area
	xmin, xmax, ymin, ymax float64
}

func (fr frame) x(v float64) float64 {
	if fr.xmax == fr.xmin {
		return fr.x0 + fr.w/2
	}
	return fr.x0 + (v-fr.xmin)/(fr.xmax-fr.xmin)*fr.w
}

func (fr frame) y(v float64) float64 {
	if fr.ymax == fr.ymin {
		return fr.y0 + fr.h/2
	}
	return fr.y0 + fr.h - (v-fr.ymin)/(fr.ymax-fr.ymin)*fr.h
}

// lineSeries is one line of a line chart.
type lineSeries struct {
	Name  string
	Class string
	X, Y  []float64
	// Marks are drawn on the line: compactions, rejections.
	Marks []chartMark
}

type chartMark struct {
	X, Y  float64
	Shape string // "dot" or "cross"
	Title string
}

// vMark is a vertical marker across the plot (where the app compacted).
type vMark struct {
	X     float64
	Title string
}

// lineChartSpec describes a line chart.
type lineChartSpec struct {
	Label          string
	W, H           float64
	XLabel, YLabel string
	XMin, XMax     float64
	YMin, YMax     float64
	YFormat        func(float64) string
	XInts          bool
	Series         []lineSeries
	VMarks         []vMark
	// HLine is a horizontal reference (the context window, the target);
	// HLabel names it. NaN for none. Within the scale it is a dashed
	// line; above it, a note at the top says where it is (offScale).
	HLine  float64
	HLabel string
}

// lineChart draws spec.
func lineChart(spec lineChartSpec) template.HTML {
	var s svg
	s.open(spec.W, spec.H, "line", spec.Label)
	fr := frame{x0: 46, y0: 18, w: spec.W - 56, h: spec.H - 46, xmin: spec.XMin, xmax: spec.XMax, ymin: spec.YMin, ymax: spec.YMax}
	yt := niceTicks(spec.YMin, spec.YMax, 4)
	fr.ymax = math.Max(fr.ymax, yt[len(yt)-1])
	yf := spec.YFormat
	if yf == nil {
		yf = kSize
	}
	for _, t := range yt {
		y := fr.y(t)
		s.f(`<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, num(fr.x0), num(fr.x0+fr.w), num(y), num(y))
		s.f(`<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>`, num(fr.x0-4), num(y+3), esc(yf(t)))
	}
	xt := niceTicks(spec.XMin, spec.XMax, 6)
	for _, t := range xt {
		if t < spec.XMin || t > spec.XMax || (spec.XInts && t != math.Trunc(t)) {
			continue
		}
		x := fr.x(t)
		s.f(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, num(x), num(fr.y0+fr.h+13), esc(strconv.FormatFloat(t, 'f', -1, 64)))
	}
	s.f(`<line class="axis" x1="%s" x2="%s" y1="%s" y2="%s"/>`, num(fr.x0), num(fr.x0+fr.w), num(fr.y0+fr.h), num(fr.y0+fr.h))
	if spec.XLabel != "" {
		s.f(`<text class="axlabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(fr.x0+fr.w), num(spec.H-2), esc(spec.XLabel))
	}
	if spec.YLabel != "" {
		s.f(`<text class="axlabel" x="2" y="9">%s</text>`, esc(spec.YLabel))
	}
	switch {
	case math.IsNaN(spec.HLine):
	case spec.HLine >= fr.ymin && spec.HLine <= fr.ymax:
		y := fr.y(spec.HLine)
		s.f(`<line class="ref" x1="%s" x2="%s" y1="%s" y2="%s"><title>%s</title></line>`, num(fr.x0), num(fr.x0+fr.w), num(y), num(y), esc(spec.HLabel))
		s.f(`<text class="reflabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(fr.x0+fr.w), num(y-3), esc(spec.HLabel))
	default:
		note := offScale(spec.HLabel, spec.HLine, fr.ymax, "↑", "above")
		s.f(`<text class="reflabel off" x="%s" y="%s" text-anchor="end"><title>%s</title>%s</text>`, num(fr.x0+fr.w), num(fr.y0-6), esc(note), esc(note))
	}
	for _, v := range spec.VMarks {
		x := fr.x(v.X)
		s.f(`<line class="app" x1="%s" x2="%s" y1="%s" y2="%s"><title>%s</title></line>`, num(x), num(x), num(fr.y0), num(fr.y0+fr.h), esc(v.Title))
		s.f(`<path class="app" d="M%s %sl-4 -7h8z"><title>%s</title></path>`, num(x), num(fr.y0+7), esc(v.Title))
	}
	for _, se := range spec.Series {
		var pts []string
		for i := range se.X {
			if math.IsNaN(se.Y[i]) {
				continue
			}
			pts = append(pts, num(fr.x(se.X[i]))+","+num(fr.y(se.Y[i])))
		}
		s.f(`<g class="%s"><polyline class="ln" points="%s"><title>%s</title></polyline>`, esc(se.Class), strings.Join(pts, " "), esc(se.Name))
		if len(pts) == 1 || len(pts) <= 12 {
			for i := range se.X {
				if !math.IsNaN(se.Y[i]) {
					s.f(`<circle class="pt" cx="%s" cy="%s" r="2.2"><title>%s: %s</title></circle>`, num(fr.x(se.X[i])), num(fr.y(se.Y[i])), esc(se.Name), esc(yf(se.Y[i])))
				}
			}
		}
		for _, m := range se.Marks {
			x, y := fr.x(m.X), fr.y(m.Y)
			if m.Shape == "cross" {
				s.f(`<path class="rej" d="M%s %sl6 6m0 -6l-6 6"><title>%s</title></path>`, num(x-3), num(y-3), esc(m.Title))
				continue
			}
			s.f(`<circle class="mk" cx="%s" cy="%s" r="3.6"><title>%s</title></circle>`, num(x), num(y), esc(m.Title))
		}
		s.f(`</g>`)
	}
	return s.html()
}

// offScale says where a reference line beyond a chart's scale is: "target
// 30k ↑ above the scale (4.3× its top)".
func offScale(label string, ref, top float64, arrow, where string) string {
	return fmt.Sprintf("%s %s %s the scale (%s× its top)", label, arrow, where, strconv.FormatFloat(math.Round(ref/top*10)/10, 'f', -1, 64))
}

// barGroup is one group of a grouped bar chart: a value per series (NaN
// for none).
type barGroup struct {
	Label  string
	Values []float64
}

// barChart draws horizontal grouped bars of values from 0 to max, one
// colour per series, each bar labelled with format(value).
func barChart(label string, names []string, groups []barGroup, maxV float64, format func(float64) string) template.HTML {
	var s svg
	const labelW, rowH, gap, w = 110.0, 13.0, 10.0, 640.0
	n := len(names)
	h := 8 + float64(len(groups))*(float64(n)*rowH+gap)
	s.open(w, h, "bars", label)
	plotW := w - labelW - 60
	y := 6.0
	for _, g := range groups {
		gh := float64(n) * rowH
		s.f(`<text class="glabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(labelW-8), num(y+gh/2+4), esc(g.Label))
		for i, v := range g.Values {
			by := y + float64(i)*rowH
			if math.IsNaN(v) {
				s.f(`<text class="tick" x="%s" y="%s">–</text>`, num(labelW+2), num(by+rowH-3))
				continue
			}
			bw := math.Max(0, math.Min(1, v/maxV)) * plotW
			s.f(`<g class="%s"><rect class="bar" x="%s" y="%s" width="%s" height="%s" rx="2"><title>%s, %s: %s</title></rect>`,
				seriesClass(i), num(labelW), num(by+1), num(math.Max(bw, 1)), num(rowH-3), esc(names[i]), esc(g.Label), esc(format(v)))
			s.f(`<text class="val" x="%s" y="%s">%s</text></g>`, num(labelW+bw+4), num(by+rowH-3), esc(format(v)))
		}
		y += gh + gap
	}
	return s.html()
}

// boxRow is one distribution of a box chart.
type boxRow struct {
	Name   string
	Class  string
	Values []float64
}

// boxChart draws one box plot a row on a shared axis from 0: whiskers from
// the minimum to the maximum, the box from the first to the third
// quartile, the median; ref is a vertical reference line (the target),
// NaN for none.
func boxChart(label string, rows []boxRow, ref float64, refLabel string, format func(float64) string) template.HTML {
	var s svg
	const labelW, rowH, w = 110.0, 26.0, 640.0
	hi := 0.0
	for _, r := range rows {
		for _, v := range r.Values {
			hi = math.Max(hi, v)
		}
	}
	if !math.IsNaN(ref) && ref < hi*3 {
		hi = math.Max(hi, ref)
	}
	ticks := niceTicks(0, hi, 5)
	top := 4.0
	if !math.IsNaN(ref) && ref > ticks[len(ticks)-1] {
		top = 16 // a line for the note that says where ref is
	}
	h := 26 + top + float64(len(rows))*rowH
	s.open(w, h, "box", label)
	fr := frame{x0: labelW, y0: top, w: w - labelW - 16, h: h - 20 - top, xmin: 0, xmax: ticks[len(ticks)-1]}
	for _, t := range ticks {
		x := fr.x(t)
		s.f(`<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, num(x), num(x), num(fr.y0), num(fr.y0+fr.h))
		s.f(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, num(x), num(h-6), esc(format(t)))
	}
	switch {
	case math.IsNaN(ref):
	case ref <= fr.xmax:
		x := fr.x(ref)
		s.f(`<line class="ref" x1="%s" x2="%s" y1="%s" y2="%s"><title>%s</title></line>`, num(x), num(x), num(fr.y0), num(fr.y0+fr.h), esc(refLabel))
		s.f(`<text class="reflabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(x-3), num(fr.y0+9), esc(refLabel))
	default:
		note := offScale(refLabel, ref, fr.xmax, "→", "beyond")
		s.f(`<text class="reflabel off" x="%s" y="%s" text-anchor="end"><title>%s</title>%s</text>`, num(fr.x0+fr.w), num(fr.y0-4), esc(note), esc(note))
	}
	for i, r := range rows {
		cy := fr.y0 + float64(i)*rowH + rowH/2
		s.f(`<text class="glabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(labelW-8), num(cy+4), esc(r.Name))
		if len(r.Values) == 0 {
			continue
		}
		v := sortedCopy(r.Values)
		q0, q1, q2, q3, q4 := v[0], quantile(v, .25), quantile(v, .5), quantile(v, .75), v[len(v)-1]
		title := fmt.Sprintf("%s: min %s, quartiles %s, %s, %s, max %s (%d)", r.Name, format(q0), format(q1), format(q2), format(q3), format(q4), len(v))
		s.f(`<g class="%s"><title>%s</title>`, esc(r.Class), esc(title))
		s.f(`<line class="whisk" x1="%s" x2="%s" y1="%s" y2="%s"/>`, num(fr.x(q0)), num(fr.x(q4)), num(cy), num(cy))
		s.f(`<rect class="boxr" x="%s" y="%s" width="%s" height="14" rx="2"/>`, num(fr.x(q1)), num(cy-7), num(math.Max(fr.x(q3)-fr.x(q1), 1.5)))
		s.f(`<line class="med" x1="%s" x2="%s" y1="%s" y2="%s"/>`, num(fr.x(q2)), num(fr.x(q2)), num(cy-8), num(cy+8))
		s.f(`</g>`)
	}
	return s.html()
}

// histChart draws one histogram a row (small multiples) of counts over
// the same bins.
func histChart(label string, names []string, bins []string, counts [][]int) template.HTML {
	var s svg
	const labelW, rowH, w = 110.0, 34.0, 640.0
	h := 18 + float64(len(names))*rowH
	s.open(w, h, "hist", label)
	plotW := w - labelW - 10
	bw := plotW / float64(len(bins))
	for i, name := range names {
		top := 4 + float64(i)*rowH
		maxC := 1
		for _, c := range counts[i] {
			maxC = max(maxC, c)
		}
		s.f(`<text class="glabel" x="%s" y="%s" text-anchor="end">%s</text>`, num(labelW-8), num(top+rowH/2+2), esc(name))
		s.f(`<g class="%s">`, seriesClass(i))
		for j, c := range counts[i] {
			bh := float64(c) / float64(maxC) * (rowH - 8)
			x := labelW + float64(j)*bw
			s.f(`<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s, score %s: %d</title></rect>`,
				num(x+1), num(top+rowH-6-bh), num(bw-2), num(math.Max(bh, 0.5)), esc(name), esc(bins[j]), c)
		}
		s.f(`</g>`)
	}
	for j, b := range bins {
		s.f(`<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>`, num(labelW+float64(j)*bw+bw/2), num(h-3), esc(b))
	}
	return s.html()
}
