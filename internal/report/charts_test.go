package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceLinesAreDrawnOrPlaced: a size chart draws the target as a
// dashed line when it is within reach of the sizes; far above them it
// says where the target is, and draws no line.
func TestReferenceLinesAreDrawnOrPlaced(t *testing.T) {
	near := boxChart("sizes", []boxRow{{Name: "a", Class: "s0", Values: []float64{12000, 20000, 26000}}}, 30000, "target 30k", kSize)
	far := boxChart("sizes", []boxRow{{Name: "a", Class: "s0", Values: []float64{1500, 2000, 7000}}}, 30000, "target 30k", kSize)
	none := boxChart("sizes", []boxRow{{Name: "a", Class: "s0", Values: []float64{1500}}}, math.NaN(), "", kSize)
	for _, c := range []struct {
		name, svg string
		line      bool
		note      string
	}{
		{"near", string(near), true, ""},
		{"far", string(far), false, "target 30k → beyond the scale (3.8× its top)"},
		{"none", string(none), false, ""},
	} {
		if got := strings.Contains(c.svg, `<line class="ref"`); got != c.line {
			t.Errorf("box chart, target %s: line drawn %v", c.name, got)
		}
		if got := strings.Contains(c.svg, `class="reflabel off"`); got != (c.note != "") || c.note != "" && !strings.Contains(c.svg, ">"+c.note+"<") {
			t.Errorf("box chart, target %s: want the note %q:\n%s", c.name, c.note, c.svg)
		}
	}

	spec := func(hline float64) lineChartSpec {
		return lineChartSpec{W: 300, H: 150, XMin: 1, XMax: 3, YMax: 4000, HLine: hline, HLabel: "target 30k",
			Series: []lineSeries{{Name: "actual", Class: "s0", X: []float64{1, 2, 3}, Y: []float64{1000, 2500, 4000}}}}
	}
	in, above := string(lineChart(spec(3000))), string(lineChart(spec(30000)))
	if !strings.Contains(in, `<line class="ref"`) || strings.Contains(in, "reflabel off") {
		t.Errorf("line chart, target within the scale: no line\n%s", in)
	}
	if strings.Contains(above, `<line class="ref"`) || !strings.Contains(above, ">target 30k ↑ above the scale (7.5× its top)<") {
		t.Errorf("line chart, target above the scale: want the note, no line\n%s", above)
	}
}

// TestChainsAreEveryChat: the report counts every chat as a chain (one
// of a single briefing too, as compact diff does), orders a chain by
// compressionNumber rather than by the directories' names, draws the
// chains of more than one briefing and says how many it does not; a
// chain's size chart says where the target is.
func TestChainsAreEveryChat(t *testing.T) {
	root := filepath.Join(t.TempDir(), "prerelease")
	first := filepath.Join(root, "001-a", "compression-002") // compressionNumber 1, below
	second := filepath.Join(root, "001-a", "compression-001")
	alone := filepath.Join(root, "002-b", "compression-001")
	for _, d := range []string{first, second, alone} {
		writeBundle(t, d, testHistory, goodBriefing, map[string]string{"run": goodBriefing})
	}
	writeFile(t, filepath.Join(first, "metadata.json"), `{"chatId": "a", "compressionNumber": 1, "boundaryMessageIndex": 4}`)
	writeFile(t, filepath.Join(second, "metadata.json"), `{"chatId": "a", "compressionNumber": 2, "boundaryMessageIndex": 9}`)
	writeFile(t, filepath.Join(second, "actual-output.md"), goodBriefing+"\n\nLonger.")
	r := Build([]string{first, second, alone}, Options{})
	page, st := render(t, r, PageOptions{})
	if st.Chains != 2 {
		t.Errorf("%d chains, want 2 (one of two briefings, one of one)", st.Chains)
	}
	grew := fmt.Sprintf("2 briefings; the app&#39;s grew from %d to %d characters", len(goodBriefing), len(goodBriefing+"\n\nLonger."))
	for _, want := range []string{"<b>2</b> chains", "1 chain (a chat) of a single briefing is not drawn.", grew, "target 30k ↑ above the scale"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<figure class="chain">`); n != 1 {
		t.Errorf("%d chains drawn, want 1", n)
	}
}
