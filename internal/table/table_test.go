package table

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/replay"
)

// example are the committed example bundles: the app's briefing and the
// builtin run of two compactions of the shipped sample.
var example = []string{
	"../../experiments-data/history-compression/example/001-paginate-the-recipe-list-server-side/compression-001",
	"../../experiments-data/history-compression/example/001-paginate-the-recipe-list-server-side/compression-002",
}

func TestShardLabelAndPart(t *testing.T) {
	for _, tc := range []struct{ shard, want string }{
		{"", "all"},
		{" ", "all"},
		{"3/8", "shard-3-of-8"},
		{"12/100", "shard-12-of-100"},
		{"a b/../c", "shard-a-b-of-..-of-c"},
	} {
		if got := ShardLabel(tc.shard); got != tc.want {
			t.Errorf("ShardLabel(%q) = %q, want %q", tc.shard, got, tc.want)
		}
	}
	a := Options{Shard: "3/8", Inputs: []string{"compact eval", "paths x"}}
	if got := a.Part(); !strings.HasPrefix(got, "part-shard-3-of-8-") || len(got) != len("part-shard-3-of-8-")+8 {
		t.Errorf("Part() = %q", got)
	}
	same := Options{Dir: "elsewhere", Shard: "3/8", Inputs: []string{"compact eval", "paths x"}}
	if a.Part() != same.Part() {
		t.Errorf("the same inputs and shard name two parts: %s, %s", a.Part(), same.Part())
	}
	for _, o := range []Options{
		{Shard: "4/8", Inputs: a.Inputs},
		{Shard: "3/8", Inputs: []string{"compact eval", "paths y"}},
		{Shard: "3/8", Inputs: []string{"compact eval", "paths", "x"}}, // the inputs' boundaries count
	} {
		if o.Part() == a.Part() {
			t.Errorf("%+v names the same part as %+v: %s", o, a, a.Part())
		}
	}
}

// readJSONL decodes every line of path into T.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []T
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var v T
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// onlyFiles lists the names in dir, failing on anything left behind (a
// temporary file).
func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func evalExample(t *testing.T) []*eval.BundleResult {
	t.Helper()
	results, errs := eval.Evaluate(example, eval.EvalOptions{}, 2)
	if len(errs) > 0 || len(results) != len(example) {
		t.Fatalf("eval of the example: %v", errs)
	}
	return results
}

func TestEvalTableRows(t *testing.T) {
	results := evalExample(t)
	dir := t.TempDir()
	o := Options{Dir: dir, Shard: "2/5", Inputs: []string{"compact eval", "test"}, ToolVersion: "test"}
	w, err := NewEval(o, EvalOptions{Baseline: eval.Actual})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	part := o.Part()
	if len(files) != 2 || files[0].Table != Probes || files[1].Table != Briefings {
		t.Fatalf("files: %+v", files)
	}
	for _, f := range files {
		want := []string{part + JSONLExt, part + ".parquet"}
		if got := onlyFiles(t, filepath.Join(dir, f.Table)); !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", f.Table, got, want)
		}
		if f.Bytes <= 0 || f.JSONLBytes <= 0 {
			t.Errorf("%s: sizes %d and %d", f.Table, f.Bytes, f.JSONLBytes)
		}
	}

	// The Parquet file and the JSON Lines hold the same rows.
	probes, err := parquet.ReadFile[ProbeRow](files[0].Parquet)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(readJSONL[ProbeRow](t, files[0].JSONL), probes); d != "" {
		t.Errorf("probes: JSON Lines and Parquet differ (-jsonl +parquet):\n%s", d)
	}
	briefings, err := parquet.ReadFile[BriefingRow](files[1].Parquet)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(readJSONL[BriefingRow](t, files[1].JSONL), briefings); d != "" {
		t.Errorf("briefings: JSON Lines and Parquet differ (-jsonl +parquet):\n%s", d)
	}

	// What eval found, row by row.
	var wantProbes, wantBriefings int
	kept := map[string]bool{}
	for _, r := range results {
		for _, b := range r.Briefings {
			wantBriefings++
			wantProbes += len(r.Probes)
			for i, a := range b.Answers {
				kept[r.Bundle+" "+b.Name+" coverage "+r.Probes[i].ID] = a.Present
			}
			if b.Grounded != nil {
				wantProbes += len(r.Grounded)
				for i := range r.Grounded {
					kept[r.Bundle+" "+b.Name+" grounded "+r.Grounded[i].ID] = b.Grounded.Answered(i)
				}
			}
		}
	}
	if len(probes) != wantProbes || int64(wantProbes) != files[0].Rows || len(briefings) != wantBriefings {
		t.Fatalf("%d probe rows (%d counted), %d briefing rows; eval has %d and %d", len(probes), files[0].Rows, len(briefings), wantProbes, wantBriefings)
	}
	lost := 0
	for _, p := range probes {
		k := p.Bundle + " " + p.Run + " " + p.Measure + " " + p.ProbeID
		want, ok := kept[k]
		if !ok || p.Kept != want {
			t.Errorf("probe row %s: kept %v, eval says %v (found %v)", k, p.Kept, want, ok)
		}
		if !p.Kept {
			lost++
		}
		if p.SchemaVersion != SchemaVersion || p.Part != part || p.Shard != "2/5" || p.ProbeKind == "" || p.ProbeAnswer == "" {
			t.Errorf("probe row %s: %+v", k, p)
		}
	}
	if lost == 0 {
		t.Error("no probe lost in the example: the test would not see a wrong kept")
	}

	byRun := map[string]BriefingRow{}
	for _, b := range briefings {
		byRun[b.Bundle+" "+b.Run] = b
	}
	first := results[0]
	act, bi := byRun[first.Bundle+" actual"], byRun[first.Bundle+" builtin"]
	if act.BriefingKind != KindActual || act.Model != nil || act.CostUSD != nil || act.Verdict != nil || act.Compaction != 1 ||
		act.Chat != "001-paginate-the-recipe-list-server-side" || act.ChatID == "" || act.Agent != "stagewise" {
		t.Errorf("the actual briefing's row: %+v", act)
	}
	if bi.BriefingKind != KindReplay || bi.Model == nil || *bi.Model != "builtin" || bi.Provider == nil || *bi.Provider != "builtin" ||
		bi.CostUSD == nil || *bi.CostUSD != 0 || bi.CacheHit == nil || bi.PackSystemSHA256 == nil || len(*bi.PackSystemSHA256) != 64 ||
		bi.RepeatOf != "builtin" || bi.RepeatIndex != 1 || bi.Verdict == nil {
		t.Errorf("the builtin run's row: %+v", bi)
	}
	sb := first.Briefing("builtin")
	if g, _ := sb.Headline(); bi.Grounded == nil || *bi.Grounded != g || bi.Chars != int64(sb.Chars) || bi.CoverageKept != int32(sb.Overall.Kept) {
		t.Errorf("the builtin run's scores: row %+v, eval %+v", bi, sb)
	}
	ah, _ := first.Briefing(eval.Actual).Headline()
	bh, _ := sb.Headline()
	want := VerdictTie
	if bh > ah {
		want = VerdictBetter
	} else if bh < ah {
		want = VerdictWorse
	}
	if *bi.Verdict != want {
		t.Errorf("verdict %s, want %s (%.3f against %.3f)", *bi.Verdict, want, bh, ah)
	}

	// The file says what it is.
	f, err := os.Open(files[0].Parquet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"compact.schema_version": "1", "compact.table": Probes, "compact.part": part, "compact.shard": "2/5"} {
		if got, ok := pf.Lookup(k); !ok || got != v {
			t.Errorf("metadata %s = %q, want %q", k, got, v)
		}
	}
}

// TestRerunReplaces: the same writer again replaces its files; another
// shard writes its own beside them.
func TestRerunReplaces(t *testing.T) {
	results := evalExample(t)
	dir := t.TempDir()
	write := func(shard string, n int) {
		t.Helper()
		w, err := NewEval(Options{Dir: dir, Shard: shard, Inputs: []string{"x"}}, EvalOptions{Baseline: eval.Actual})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results[:n] {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("1/2", 2)
	write("1/2", 1)
	names := onlyFiles(t, filepath.Join(dir, Briefings))
	if len(names) != 2 {
		t.Fatalf("after a rerun: %v", names)
	}
	rows, err := parquet.ReadFile[BriefingRow](filepath.Join(dir, Briefings, strings.TrimSuffix(names[0], JSONLExt)+".parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(results[0].Briefings) {
		t.Errorf("the rerun's file holds %d rows, want %d (the second run's only)", len(rows), len(results[0].Briefings))
	}
	write("2/2", 1)
	if names := onlyFiles(t, filepath.Join(dir, Briefings)); len(names) != 4 {
		t.Errorf("two shards: %v", names)
	}
}

// TestRowGroupsBounded: rows go out a row group at a time.
func TestRowGroupsBounded(t *testing.T) {
	dir := t.TempDir()
	p, err := newPart[ReplayRow](Options{Dir: dir, RowGroupRows: 100}, Replays)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1050 {
		if err := p.add(ReplayRow{Run: "r", Status: replay.StatusOK, LatencyMs: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := commitAll(p)
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(f[0].Parquet)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	st, _ := file.Stat()
	pf, err := parquet.OpenFile(file, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 11 {
		t.Errorf("%d row groups, want 11 of at most 100 rows", n)
	}
	for _, rg := range pf.RowGroups() {
		if rg.NumRows() > 100 {
			t.Errorf("a row group of %d rows", rg.NumRows())
		}
	}
	rows, err := parquet.ReadFile[ReplayRow](f[0].Parquet)
	if err != nil || len(rows) != 1050 || rows[1049].LatencyMs != 1049 {
		t.Errorf("%d rows back, %v", len(rows), err)
	}
}

// TestAbortLeavesNothing: a writer stopped before Close leaves no file,
// and a reader of the folder sees none half-written meanwhile.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	w, err := NewReplay(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add(replay.Item{Bundle: filepath.Join(dir, "none"), Status: replay.StatusError, Error: "x"}, "r"); err != nil {
		t.Fatal(err)
	}
	for _, n := range onlyFiles(t, filepath.Join(dir, Replays)) {
		if !strings.HasPrefix(n, ".") || strings.HasSuffix(n, ".parquet") || strings.HasSuffix(n, JSONLExt) {
			t.Errorf("while writing, %s would be read as part of the table", n)
		}
	}
	w.Abort()
	if names := onlyFiles(t, filepath.Join(dir, Replays)); len(names) != 0 {
		t.Errorf("after Abort: %v", names)
	}
}

// TestReplayRows: a replay row is the record's; an error has none.
func TestReplayRows(t *testing.T) {
	dir := t.TempDir()
	w, err := NewReplay(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	items := []replay.Item{
		{Bundle: example[0], Status: replay.StatusSkipped, Model: "builtin", Chars: 2664},
		{Bundle: example[1], Status: replay.StatusError, Error: "user-message.md is missing"},
	}
	for _, it := range items {
		if err := w.Add(it, "builtin"); err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parquet.ReadFile[ReplayRow](files[0].Parquet)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	rec, err := replay.ReadRecord(example[0], "builtin")
	if err != nil {
		t.Fatal(err)
	}
	a, b := rows[0], rows[1]
	if a.Status != replay.StatusSkipped || a.Models != "builtin" || a.Provider == nil || *a.Provider != "builtin" || a.Attempts != 1 ||
		a.OutputChars != int64(rec.OutputChars) || a.UserSHA256 == nil || *a.UserSHA256 != rec.UserSha256 || a.Error != nil || a.Compaction != 1 {
		t.Errorf("skipped row: %+v", a)
	}
	if b.Status != replay.StatusError || b.Error == nil || *b.Error != "user-message.md is missing" || b.Model != nil || b.Attempts != 0 || b.Compaction != 2 {
		t.Errorf("error row: %+v", b)
	}
}

// BenchmarkProbeRows writes probe rows as eval --table does (Parquet and
// JSON Lines); memory stays at one row group's pages however many rows.
//
//	go test -run '^$' -bench ProbeRows -benchmem ./internal/table
func BenchmarkProbeRows(b *testing.B) {
	p, err := newPart[ProbeRow](Options{Dir: b.TempDir()}, Probes)
	if err != nil {
		b.Fatal(err)
	}
	row := ProbeRow{SchemaVersion: SchemaVersion, Part: "part-all-00000000", Bundle: "experiments-data/history-compression/prerelease/001-paginate-the-recipe-list-server-side/compression-001",
		Chat: "001-paginate-the-recipe-list-server-side", ChatID: "01047173-5fee-4fd1-841b-f445a3f0c50e", Compaction: 1, Agent: "stagewise",
		Run: "default-pack", BriefingKind: KindReplay, RepeatOf: "default-pack", RepeatIndex: 1, Measure: MeasureCoverage,
		ProbeKind: "artifact", ProbeMatch: "path", ProbeSource: "user", ProbeQuestion: "Which files did you change?", How: "path"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		row.ProbeIndex, row.ProbeID, row.ProbeAnswer, row.Kept = int32(i%150), "artifact-"+strconv.Itoa(i%150), "w1a2/src/file"+strconv.Itoa(i)+".ts", i%3 != 0
		if err := p.add(row); err != nil {
			b.Fatal(err)
		}
	}
	files, err := commitAll(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(files[0].Bytes)/float64(b.N), "parquet-B/row")
	b.ReportMetric(float64(files[0].JSONLBytes)/float64(b.N), "jsonl-B/row")
}
