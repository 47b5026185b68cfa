package shard

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{in: "", want: Spec{}},
		{in: "0/1", want: Spec{0, 1}},
		{in: "0/8", want: Spec{0, 8}},
		{in: "7/8", want: Spec{7, 8}},
		{in: " 3 / 4 ", want: Spec{3, 4}},
		{in: "8/8", err: `"8/8": K must be from 0 to 7 for 8 shards`},
		{in: "-1/8", err: "K must be from 0 to 7"},
		{in: "1/0", err: `"1/0": N must be from 1 to`},
		{in: "0/-2", err: "N must be from 1 to"},
		{in: "3", err: `"3" is not K/N`},
		{in: "a/b", err: "is not K/N"},
		{in: "1/2/3", err: "is not K/N"},
		{in: "0/2000000", err: "N must be from 1 to 1048576"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse(%q): error of more than one line: %q", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.in != "" && got.String() != strings.ReplaceAll(tc.in, " ", "") {
			t.Errorf("Parse(%q).String() = %q", tc.in, got.String())
		}
	}
}

// The assignment is the documented one, which other tools reproduce:
// the first 8 bytes of SHA-256, big-endian, mod N (values from
// sha256sum and Python).
func TestOfDocumentedHash(t *testing.T) {
	// printf %s abc | sha256sum: ba7816bf8f01cfea...
	if got := Hash("abc"); got != 0xba7816bf8f01cfea {
		t.Fatalf("Hash(abc) = %x", got)
	}
	for _, tc := range []struct {
		key  string
		n    int
		want int
	}{
		{"abc", 8, 0xba7816bf8f01cfea % 8},
		{"abc", 3, int(uint64(0xba7816bf8f01cfea) % 3)},
		{"abc", 1, 0},
		// printf %s ff5dc157-1738-4824-a458-f29a0cd9d0fb | sha256sum
		{"ff5dc157-1738-4824-a458-f29a0cd9d0fb", 1 << 20, int(Hash("ff5dc157-1738-4824-a458-f29a0cd9d0fb") & (1<<20 - 1))},
	} {
		if got := Of(tc.key, tc.n); got != tc.want {
			t.Errorf("Of(%q, %d) = %d, want %d", tc.key, tc.n, got, tc.want)
		}
	}
	if Of("abc", 8) != 2 { // 0xea & 7
		t.Errorf("Of(abc, 8) = %d, want 2", Of("abc", 8))
	}
}

func randomUnits(r *rand.Rand, n int) []Unit {
	agents := []string{"stagewise", "claude-code", "codex"}
	us := make([]Unit, n)
	for i := range us {
		us[i] = Unit{
			Key:         fmt.Sprintf("chat-%d-%x", i, r.Int63()),
			Agent:       agents[r.Intn(len(agents))],
			Length:      1 + r.Intn(400),
			Compactions: r.Intn(4),
		}
	}
	return us
}

// Every unit lands in exactly one shard, for any N; with a sample the
// shards cover the sample exactly once.
func TestEveryUnitInExactlyOneShard(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	units := randomUnits(r, 2000)
	for _, sm := range []Sampling{{}, {Size: 300, Strata: StrataNames, Seed: 3}} {
		whole, wsel := Select(units, sm, Spec{}, "chat")
		for _, n := range []int{1, 2, 3, 7, 8, 16, 100} {
			count := make([]int, len(units))
			total := 0
			for k := range n {
				keep, sel := Select(units, sm, Spec{k, n}, "chat")
				total += sel.Selected
				for i, in := range keep {
					if in {
						count[i]++
					}
				}
			}
			for i, c := range count {
				want := 0
				if whole[i] {
					want = 1
				}
				if c != want {
					t.Fatalf("sample %d, N=%d: unit %s in %d shards, want %d", sm.Size, n, units[i].Key, c, want)
				}
			}
			if total != wsel.Selected {
				t.Errorf("sample %d, N=%d: shards select %d in all, the whole run %d", sm.Size, n, total, wsel.Selected)
			}
		}
	}
}

// Units with the same key go together, into one shard and in or out of
// the sample together.
func TestSameKeyTogether(t *testing.T) {
	units := []Unit{{Key: "a", Length: 3}, {Key: "b"}, {Key: "a", Length: 900, Compactions: 2}, {Key: "c"}}
	for k := range 4 {
		keep, _ := Select(units, Sampling{}, Spec{k, 4}, "chat")
		if keep[0] != keep[2] {
			t.Errorf("shard %d/4: the two units of key a split", k)
		}
	}
	for seed := range int64(20) {
		keep, sel := Select(units, Sampling{Size: 1, Seed: seed}, Spec{}, "chat")
		if keep[0] != keep[2] || sel.Units != 3 {
			t.Errorf("seed %d: keep %v, units %d", seed, keep, sel.Units)
		}
	}
}

// The sample depends on the units and the seed, not on their order.
func TestSampleDeterministicAndOrderIndependent(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	units := randomUnits(r, 1000)
	sm := Sampling{Size: 100, Strata: StrataNames, Seed: 1}
	picked := func(us []Unit) []string {
		keep, _ := Select(us, sm, Spec{}, "chat")
		var keys []string
		for i, in := range keep {
			if in {
				keys = append(keys, us[i].Key)
			}
		}
		slices.Sort(keys)
		return keys
	}
	want := picked(units)
	if len(want) != 100 {
		t.Fatalf("picked %d, want 100", len(want))
	}
	for range 5 {
		shuffled := slices.Clone(units)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := picked(shuffled); !slices.Equal(got, want) {
			t.Fatal("another order of the same units gave another sample")
		}
	}
	sm.Seed = 2
	if got := picked(units); slices.Equal(got, want) {
		t.Error("seeds 1 and 2 gave the same sample")
	}
}

// Proportional allocation across strata, at least one per stratum when
// the size allows.
func TestSampleStratified(t *testing.T) {
	var units []Unit
	add := func(agent string, n, compactions int) {
		for i := range n {
			units = append(units, Unit{Key: fmt.Sprintf("%s-%d-%d", agent, compactions, i), Agent: agent, Length: 10, Compactions: compactions})
		}
	}
	add("claude-code", 600, 1)
	add("codex", 300, 2)
	add("stagewise", 99, 0)
	add("otel", 1, 5)
	for _, tc := range []struct {
		size   int
		strata []string
		want   map[string]int
	}{
		{100, []string{StratumAgent}, map[string]int{"agent=claude-code": 60, "agent=codex": 30, "agent=stagewise": 9, "agent=otel": 1}},
		{10, []string{StratumAgent}, map[string]int{"agent=claude-code": 5, "agent=codex": 3, "agent=stagewise": 1, "agent=otel": 1}},
		// Fewer than the strata: one each to the largest.
		{2, []string{StratumAgent}, map[string]int{"agent=claude-code": 1, "agent=codex": 1, "agent=stagewise": 0, "agent=otel": 0}},
		{100, []string{StratumCompactions}, map[string]int{"compactions=0": 10, "compactions=1": 60, "compactions=2+": 30}},
		{2000, []string{StratumAgent}, map[string]int{"agent=claude-code": 600, "agent=codex": 300, "agent=stagewise": 99, "agent=otel": 1}},
		{50, []string{}, map[string]int{"all": 50}},
	} {
		keep, sel := Select(units, Sampling{Size: tc.size, Strata: tc.strata, Seed: 1}, Spec{}, "chat")
		got := map[string]int{}
		for _, c := range sel.Sample.Counts {
			got[c.Stratum] = c.Picked
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("size %d by %v: %s picked %d, want %d (all: %v)", tc.size, tc.strata, k, got[k], v, got)
			}
		}
		n := 0
		for _, in := range keep {
			if in {
				n++
			}
		}
		if n != min(tc.size, len(units)) || sel.Selected != n || sel.Sample.Picked != n {
			t.Errorf("size %d: kept %d, selected %d, picked %d", tc.size, n, sel.Selected, sel.Sample.Picked)
		}
	}
}

// Length is in tertiles of the whole set.
func TestSampleLengthTertiles(t *testing.T) {
	var units []Unit
	for i := range 90 {
		units = append(units, Unit{Key: fmt.Sprint(i), Length: i + 1})
	}
	_, sel := Select(units, Sampling{Size: 9, Strata: []string{StratumLength}, Seed: 1}, Spec{}, "chat")
	if !slices.Equal(sel.Sample.LengthCuts, []int{31, 61}) {
		t.Errorf("cuts %v, want [31 61]", sel.Sample.LengthCuts)
	}
	want := []StratumCount{{"length=long", 30, 3}, {"length=medium", 30, 3}, {"length=short", 30, 3}}
	if !slices.Equal(sel.Sample.Counts, want) {
		t.Errorf("counts %v, want %v", sel.Sample.Counts, want)
	}
}

func TestParseStrata(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "agent,length,compactions", want: StrataNames},
		{in: "compactions, agent", want: []string{"agent", "compactions"}},
		{in: "length,length", want: []string{"length"}},
		{in: "none", want: []string{}},
		{in: "", want: []string{}},
		{in: "agent,size", err: `unknown stratum "size"`},
	} {
		got, err := ParseStrata(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseStrata(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseStrata(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestSelectionString(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	units := randomUnits(r, 3000)
	_, sel := Select(units, Sampling{Size: 1000, Strata: StrataNames, Seed: 1}, Spec{}, "chat")
	if got := sel.String(); !strings.HasPrefix(got, "sample: 1,000 of 3,000 chats in 27 strata (agent, length, compactions), seed 1") {
		t.Errorf("got %q", got)
	}
	_, sel = Select(units, Sampling{Size: 10, Seed: 4}, Spec{1, 2}, "history")
	if got := sel.String(); !strings.HasPrefix(got, "sample: 10 of 3,000 histories in 1 stratum (unstratified), seed 4; shard 1/2: ") || !strings.HasSuffix(got, " of them") {
		t.Errorf("got %q", got)
	}
	_, sel = Select(units[:1], Sampling{}, Spec{0, 2}, "session file")
	if got := sel.String(); got != fmt.Sprintf("shard 0/2: %d of 1 session file", sel.Selected) {
		t.Errorf("got %q", got)
	}
	if _, sel = Select(units, Sampling{}, Spec{0, 1}, "chat"); sel.Active() {
		t.Errorf("0/1 and no sample: %+v is active", sel)
	}
}

// TestFileKeys: names that repeat (entireio/cli's checkpoint archive keeps
// every Claude Code session as <xx>/<id>/<n>/full.jsonl) grow by their
// parent folders, a group of equal keys at a time, until they differ,
// and no further; unique names stay
// bare, and the keys do not depend on where the tree sits.
func TestFileKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"unique names", []string{"/a/s1.jsonl", "/b/s2.jsonl"}, []string{"s1", "s2"}},
		{"one archive", []string{"/x/fc/99/0/full.jsonl", "/x/fc/99/1/full.jsonl", "/x/ab/12/0/full.jsonl"},
			[]string{"99/0/full", "1/full", "12/0/full"}},
		{"elsewhere, same keys", []string{"rel/fc/99/0/full.jsonl", "rel/fc/99/1/full.jsonl", "rel/ab/12/0/full.jsonl"},
			[]string{"99/0/full", "1/full", "12/0/full"}},
		{"one file twice", []string{"/a/s.jsonl", "/a/./s.jsonl"}, []string{"s", "s"}},
		{"standard input", []string{"-", "/a/b.jsonl"}, []string{"-", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FileKeys(tc.paths)
			if !slices.Equal(got, tc.want) {
				t.Errorf("FileKeys(%q) = %q, want %q", tc.paths, got, tc.want)
			}
		})
	}
}
