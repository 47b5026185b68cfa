package serialize

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/compactlab/compact/internal/history"
)

// v129Vector is one line of testdata/upstream/v1.29.0/compact-history.jsonl:
// what the v1.29.0 serializer (stagewise 18ac8a27b under Node) returned for
// raw with the host named ("none": no host, as the extraction script
// passes; "browser": the app's host through the harness's shim), or the
// error superjson threw decoding raw.
type v129Vector struct {
	Name          string  `json:"name"`
	Raw           string  `json:"raw"`
	Host          string  `json:"host"`
	Expected      string  `json:"expected"`
	ExpectedLen16 int     `json:"expectedLen16"`
	Error         *string `json:"error"`
}

// v129Profiles are the profiles of the hosts.
var v129Profiles = map[string]string{"none": "v1.29.0-nohost", "browser": "v1.29.0"}

// TestSerializeUpstreamV129 runs the serializer vectors of the
// differential run against v1.29.0 (scripts/upstream-diff/run.sh with
// UPSTREAM_REF=18ac8a27b; make-release-vectors.sh wrote them) through the
// profile of each host, with both decoders.
func TestSerializeUpstreamV129(t *testing.T) {
	f, err := os.Open("../../testdata/upstream/v1.29.0/compact-history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	hosts := map[string]int{}
	for sc.Scan() {
		var v v129Vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		prof, err := LookupProfile(v129Profiles[v.Host])
		if err != nil {
			t.Fatalf("%s: host %q: %v", v.Name, v.Host, err)
		}
		hosts[v.Host]++
		t.Run(v.Name+"/"+v.Host, func(t *testing.T) {
			for _, decode := range []func(string) ([]history.Value, bool, error){history.DecodeMessages, history.DecodeMessagesLazy} {
				msgs, ok, err := decode(v.Raw)
				if v.Error != nil {
					if err == nil && ok {
						t.Errorf("decoded, want an error like %q", *v.Error)
					}
					continue
				}
				if err != nil || !ok {
					t.Fatalf("decode: ok=%v err=%v", ok, err)
				}
				got := Serialize(msgs, Options{Profile: prof, Problems: func(p Problem) {
					if !p.Upstream {
						t.Errorf("problem %v", p)
					}
				}})
				if w := history.ToWellFormed(got); w != v.Expected {
					t.Errorf("got\n%q\nwant\n%q", w, v.Expected)
				}
				if n := history.Len16(got); n != v.ExpectedLen16 {
					t.Errorf("len16 = %d, want %d", n, v.ExpectedLen16)
				}
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if hosts["none"] == 0 || hosts["browser"] == 0 {
		t.Fatalf("vectors per host: %v", hosts)
	}
}
