package estimate

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// TestEstimateUpstreamV129 runs the estimator vectors of the differential
// run against v1.29.0 (testdata/upstream/v1.29.0/estimate-message-tokens.jsonl:
// estimateMessageTokens of each element of raw, as stagewise 18ac8a27b
// returned it under Node) through the head profile's estimate.
func TestEstimateUpstreamV129(t *testing.T) {
	f, err := os.Open("../../testdata/upstream/v1.29.0/estimate-message-tokens.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	p := Profiles["v1.29.0"]
	for sc.Scan() {
		var v struct {
			Name     string            `json:"name"`
			Raw      string            `json:"raw"`
			Expected []json.RawMessage `json:"expected"`
			Error    *string           `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		n++
		t.Run(v.Name, func(t *testing.T) {
			val, err := history.DecodeSuperJSON(v.Raw)
			if v.Error != nil {
				if err == nil && val.Kind() == history.Array {
					t.Errorf("decoded to an array, want an error like %q", *v.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			elems := val.Elems()
			if len(elems) != len(v.Expected) {
				t.Fatalf("%d messages, %d estimates", len(elems), len(v.Expected))
			}
			for i, m := range elems {
				got, err := p.MessageTokens(m)
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				var want float64
				switch s := string(v.Expected[i]); s {
				case `"NaN"`:
					want = math.NaN()
				case `"Infinity"`:
					want = math.Inf(1)
				case `"-Infinity"`:
					want = math.Inf(-1)
				default:
					if err := json.Unmarshal(v.Expected[i], &want); err != nil {
						t.Fatal(err)
					}
				}
				if !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("message %d: estimate %v, want %v", i, got, want)
				}
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no vectors")
	}
}
