package cmd

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compactlab/compact/internal/bundle"
)

// Tests of --shard and --sample on replay, eval and simulate, and of
// bad flags (shard_test.go: extract, and the helpers).

// replayFiles reads every replay under root: bundle-relative path ->
// bytes, with the times of replay.json (latencyMs, startedAt,
// finishedAt) and the bundle's path taken out.
func replayFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(p, string(filepath.Separator)+bundle.DirReplays+string(filepath.Separator)) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.Name() == bundle.FileRecord {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				return err
			}
			dropKeys(v, "latencyMs", "startedAt", "finishedAt", "bundle")
			data, _ = json.Marshal(v)
		}
		out[rel] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dropKeys(v any, keys ...string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(x, k)
		}
		for _, e := range x {
			dropKeys(e, keys...)
		}
	case []any:
		for _, e := range x {
			dropKeys(e, keys...)
		}
	}
}

// evalResults runs eval --json with args and returns its per-bundle
// results by bundle, each as its JSON, and the selection it reports.
func evalResults(t *testing.T, args ...string) (map[string]string, map[string]any) {
	t.Helper()
	code, stdout, errOut := runIn(t, nil, append([]string{"eval", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("eval %v: exit %d: %s", args, code, errOut)
	}
	var rep struct {
		Results   []json.RawMessage
		Selection map[string]any
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rep.Results {
		var b struct{ Bundle string }
		if err := json.Unmarshal(r, &b); err != nil {
			t.Fatal(err)
		}
		out[b.Bundle] = string(r)
	}
	return out, rep.Selection
}

// TestShardUnionReplayEval: the builtin model's replays of N shards are
// an unsharded replay's, file for file (the times aside); eval's
// per-bundle scores of N shards are the unsharded eval's, byte for byte;
// a sample's shards cover the sample's scores.
func TestShardUnionReplayEval(t *testing.T) {
	t.Parallel()         // heavy and independent
	_, src := shardDB(t) // extracted; read only here
	tmp := t.TempDir()
	whole, sharded := filepath.Join(tmp, "whole"), filepath.Join(tmp, "sharded")
	copyTree(t, src, whole)
	copyTree(t, src, sharded)
	if code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", whole); code != 0 {
		t.Fatalf("replay: %s", errOut)
	}
	for k := range 3 {
		code, stdout, errOut := runIn(t, nil, "replay", "--model", "builtin", sharded, "--shard", fmt.Sprintf("%d/3", k), "--json")
		if code != 0 {
			t.Fatalf("replay --shard %d/3: exit %d: %s", k, code, errOut)
		}
		if !strings.Contains(stdout, `"shard": "`+fmt.Sprintf("%d/3", k)+`"`) || !strings.Contains(errOut, fmt.Sprintf("compact replay: shard %d/3: ", k)) {
			t.Errorf("replay --shard %d/3: the selection is not reported\n%s", k, errOut)
		}
	}
	bundles, err := readFinder.Find([]string{src})
	if err != nil || len(bundles) <= shardChats {
		t.Fatalf("%d bundles (%v), want more than %d", len(bundles), err, shardChats)
	}
	w, s := replayFiles(t, whole), replayFiles(t, sharded)
	if len(w) != 2*len(bundles) || !maps.Equal(w, s) {
		t.Fatalf("replays: %d files unsharded, %d sharded, equal %v", len(w), len(s), maps.Equal(w, s))
	}

	all, _ := evalResults(t, whole)
	if len(all) != len(bundles) {
		t.Fatalf("eval: %d results, want %d", len(all), len(bundles))
	}
	for _, n := range shardNs() {
		union := map[string]string{}
		for k := range n {
			part, sel := evalResults(t, whole, "--shard", fmt.Sprintf("%d/%d", k, n))
			if sel["shard"] != fmt.Sprintf("%d/%d", k, n) {
				t.Errorf("eval --shard %d/%d: selection %v", k, n, sel)
			}
			for b, r := range part {
				if _, dup := union[b]; dup {
					t.Fatalf("N=%d: %s in two shards", n, b)
				}
				union[b] = r
			}
		}
		if !maps.Equal(union, all) {
			t.Fatalf("N=%d: the shards' results (%d) are not the unsharded run's (%d)", n, len(union), len(all))
		}
	}
	// A sample of 5 chats, and its shards.
	sampled, sel := evalResults(t, whole, "--sample", "5")
	if sel["selected"] != 5.0 || sel["units"] != float64(shardChats) || sel["sample"] == nil || len(sampled) < 5 {
		t.Fatalf("--sample 5: %d bundles, selection %v", len(sampled), sel)
	}
	union := map[string]string{}
	for k := range 2 {
		part, _ := evalResults(t, whole, "--sample", "5", "--shard", fmt.Sprintf("%d/2", k))
		maps.Copy(union, part)
	}
	if !maps.Equal(union, sampled) {
		t.Fatalf("the sample's shards give %d results, the sample %d", len(union), len(sampled))
	}
	for b, r := range sampled {
		if all[b] != r {
			t.Fatalf("%s: scored otherwise in the sample", b)
		}
	}
}

// TestShardUnionSimulate: simulate's histories of N shards are the
// unsharded run's, each byte for byte in the JSON report.
func TestShardUnionSimulate(t *testing.T) {
	db := DefaultSampleDBPath
	histories := func(args ...string) map[string]string {
		t.Helper()
		code, stdout, errOut := runIn(t, nil, append([]string{"simulate", "--db", "../" + db, "--context-window", "16000", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("simulate %v: exit %d: %s", args, code, errOut)
		}
		var rep struct{ Histories []json.RawMessage }
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, h := range rep.Histories {
			var n struct{ Name string }
			_ = json.Unmarshal(h, &n)
			out[n.Name] = string(h)
		}
		return out
	}
	all := histories()
	if len(all) != 6 {
		t.Fatalf("%d histories, want 6", len(all))
	}
	for _, n := range []int{2, 3, 4} {
		union := map[string]string{}
		for k := range n {
			for name, h := range histories("--shard", fmt.Sprintf("%d/%d", k, n)) {
				if _, dup := union[name]; dup {
					t.Fatalf("N=%d: %s in two shards", n, name)
				}
				union[name] = h
			}
		}
		if !maps.Equal(union, all) {
			t.Fatalf("N=%d: %d histories in the shards, %d in the whole run", n, len(union), len(all))
		}
	}
	// A sample of 3, then its shards.
	sampled := histories("--sample", "3", "--seed", "2")
	if len(sampled) != 3 {
		t.Fatalf("--sample 3: %d histories", len(sampled))
	}
	union := map[string]string{}
	for k := range 2 {
		maps.Copy(union, histories("--sample", "3", "--seed", "2", "--shard", fmt.Sprintf("%d/2", k)))
	}
	if !maps.Equal(union, sampled) {
		t.Fatalf("the sample's shards simulated %d histories, the sample %d", len(union), len(sampled))
	}
	// Files: a shard is of the files' names.
	files := []string{"../examples/histories/linear.jsonl", "../examples/histories/branching.jsonl"}
	code, stdout, _ := runIn(t, nil, append([]string{"simulate", "--json", "--context-window", "680"}, files...)...)
	whole := stdout
	var got []string
	for k := range 2 {
		c, out, errOut := runIn(t, nil, append([]string{"simulate", "--json", "--context-window", "680", "--shard", fmt.Sprintf("%d/2", k)}, files...)...)
		if c != 0 {
			t.Fatalf("simulate files --shard %d/2: exit %d: %s", k, c, errOut)
		}
		var rep struct{ Histories []struct{ Name string } }
		_ = json.Unmarshal([]byte(out), &rep)
		for _, h := range rep.Histories {
			got = append(got, h.Name)
		}
	}
	sort.Strings(got)
	if code != 0 || len(got) != 2 || !strings.Contains(whole, got[0]) || !strings.Contains(whole, got[1]) {
		t.Errorf("the files' shards simulated %v", got)
	}
}

// TestShardFlagErrors: bad flags and configuration are one line, exit 2,
// before anything is read.
func TestShardFlagErrors(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"eval", out, "--shard", "8/8"}, `compact eval: --shard: "8/8": K must be from 0 to 7 for 8 shards (K counts from 0`},
		{nil, []string{"replay", "--model", "builtin", out, "--shard", "1/0"}, `compact replay: --shard: "1/0": N must be from 1 to`},
		{nil, []string{"extract", "--db", "x.sqlite", "--shard", "two/4"}, `compact extract: --shard: "two/4" is not K/N`},
		{nil, []string{"simulate", "x.jsonl", "--sample", "-3"}, "compact simulate: --sample: -3 is negative"},
		{nil, []string{"eval", out, "--sample", "5", "--strata", "agent,size"}, `compact eval: --strata: unknown stratum "size"`},
		{nil, []string{"eval", out, "--seed", "4"}, "compact eval: --seed shapes a sample: give --sample N too"},
		{map[string]string{"COMPACT_SHARD": "3/2"}, []string{"eval", out}, `compact eval: shard (env COMPACT_SHARD): "3/2": K must be from 0 to 1`},
		{map[string]string{"COMPACT_SAMPLE_SIZE": "ten"}, []string{"eval", out}, `compact eval: config: environment: COMPACT_SAMPLE_SIZE: "ten" is not a whole number`},
		{nil, []string{"replay", "--model", "builtin", "--batch", out, "--shard", "0/2"}, "compact replay: --batch submits the whole directory as one batch run: it takes no --shard or --sample"},
	} {
		code, _, errOut := runIn(t, tc.env, tc.args...)
		if code != 2 || !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 and one line starting %q", tc.env, tc.args, code, errOut, tc.want)
		}
	}
}

// TestShardEmptyAndEnv: a shard with nothing in it is no error; the
// configuration's shard (COMPACT_SHARD) applies as the flag does.
func TestShardEmptyAndEnv(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	src := filepath.Join(tmp, "b")
	if code, _, errOut := runIn(t, nil, "extract", "--db", "../"+DefaultSampleDBPath, "--out", src); code != 0 {
		t.Fatal(errOut)
	}
	// 3 chats with bundles: some shard of 16 is empty.
	empty := -1
	for k := range 16 {
		code, stdout, errOut := runIn(t, map[string]string{"COMPACT_SHARD": fmt.Sprintf("%d/16", k)}, "eval", src, "--json")
		if code != 0 {
			t.Fatalf("shard %d/16: exit %d: %s", k, code, errOut)
		}
		if strings.Contains(errOut, "nothing to do: this shard holds no chat") {
			empty = k
			if !strings.Contains(stdout, `"selected": 0`) {
				t.Errorf("empty shard: --json printed %s", stdout)
			}
		} else if !strings.Contains(errOut, fmt.Sprintf("compact eval: shard %d/16: 1 of 3 chats", k)) {
			t.Errorf("shard %d/16: stderr %q", k, errOut)
		}
	}
	if empty < 0 {
		t.Fatal("no empty shard of 16 for 3 chats")
	}
	code, _, errOut := runIn(t, nil, "replay", "--model", "builtin", src, "--shard", fmt.Sprintf("%d/16", empty), "-q")
	if code != 0 || errOut != "" {
		t.Errorf("replay of an empty shard, quiet: exit %d, %q", code, errOut)
	}
}
