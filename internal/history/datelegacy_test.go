package history

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"
	"time"
)

// dateVectors reads a file written by scripts/upstream-diff/date-vectors.sh:
// a header naming the Node version and the zones, then one line per input
// with Node's Date.parse under each zone (null for NaN).
func dateVectors(t *testing.T, name string) (zones []string, node string, rows [][]any) {
	t.Helper()
	var head struct {
		Node  string   `json:"node"`
		Zones []string `json:"zones"`
	}
	lines := vectorLines(t, name, &head)
	if len(head.Zones) == 0 {
		t.Fatalf("%s: no zones in the header", name)
	}
	for _, l := range lines {
		var row []any
		if err := json.Unmarshal([]byte(l), &row); err != nil || len(row) != 1+len(head.Zones) {
			t.Fatalf("%s: bad line %q: %v", name, l, err)
		}
		rows = append(rows, row)
	}
	return head.Zones, head.Node, rows
}

// vectorLines reads a vectors file of scripts/upstream-diff: its first
// line, a JSON header, into head, and returns the other lines.
func vectorLines(t *testing.T, name string, head any) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	if !sc.Scan() {
		t.Fatalf("%s: empty", name)
	}
	if err := json.Unmarshal(sc.Bytes(), head); err != nil {
		t.Fatalf("%s: bad header %q: %v", name, sc.Text(), err)
	}
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// checkDateVectors compares parseDateIn with Node under every zone of the
// file whose zone data this machine has; under UTC it goes through
// parseDate itself (TestMain makes time.Local UTC).
func checkDateVectors(t *testing.T, name string) {
	zones, node, rows := dateVectors(t, name)
	if len(rows) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	for z, zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Logf("zone %s skipped: %v", zone, err)
			continue
		}
		bad := 0
		for _, row := range rows {
			s := row[0].(string)
			want := math.NaN()
			if v, ok := row[1+z].(float64); ok {
				want = v
			}
			var got float64
			if zone == "UTC" && time.Local == time.UTC {
				got = parseDate(s)
			} else {
				got = parseDateIn(s, loc)
			}
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				if bad++; bad <= 20 {
					t.Errorf("TZ=%s Date.parse(%q) = %v, Node %s gives %v", zone, s, got, node, want)
				}
			}
		}
		if bad > 20 {
			t.Errorf("TZ=%s: %d of %d differ", zone, bad, len(rows))
		}
	}
}

// TestDateParseMatchesNode runs every input of
// scripts/upstream-diff/date-inputs.jsonl (the ES5 format, the legacy
// forms, odd spacing, comments, out-of-range fields, non-ASCII text and
// token soup) against Date.parse in Node 20, under UTC and under two zones
// with summer time.
func TestDateParseMatchesNode(t *testing.T) {
	checkDateVectors(t, "testdata/date-legacy-node20.jsonl")
}

// TestLocalToUTCTransitions checks the reading of local times a
// transition skips or repeats: the offset before the transition, as V8
// reads them (new Date(2026, 2, 8, 2, 30) in New York is 03:30 EDT).
func TestLocalToUTCTransitions(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		s    string
		want int64
	}{
		{"2026-03-08T02:30:00", 1772955000000}, // skipped: read as EST
		{"2026-11-01T01:30:00", 1793511000000}, // repeated: read as EDT
		{"Mar 8 2026 01:59:59", 1772953199000},
		{"Mar 8 2026 03:00", 1772953200000},
		{"Nov 1 2026 00:59", 1793509140000},
		{"Nov 1 2026 02:00", 1793516400000},
	} {
		if got := parseDateIn(c.s, ny); got != float64(c.want) {
			t.Errorf("%s in New York = %v, want %d", c.s, got, c.want)
		}
	}
}
