package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// duckdbPackage is the DuckDB the table's tests read it with: npm's
// @duckdb/node-api, which ships DuckDB's native bindings inside the
// package (Debian has no DuckDB). .ci/run installs the same version.
const duckdbPackage = "@duckdb/node-api@1.5.6-r.1"

// duckDB returns the directory whose node_modules holds duckdbPackage,
// installing it there once (npm install --no-save): $COMPACT_DUCKDB_DIR,
// else compact-duckdb in the user's cache directory, outside the
// repository. Where node or npm is missing or the install fails (no
// network), it returns why instead, for the test to skip.
func duckDB(t *testing.T) (dir, why string) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		return "", "no node on PATH: the results table is not read with DuckDB here (install Node 20 and npm)"
	}
	dir = os.Getenv("COMPACT_DUCKDB_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Sprintf("no cache directory for DuckDB (%v): set COMPACT_DUCKDB_DIR", err)
		}
		dir = filepath.Join(cache, "compact-duckdb")
	}
	name, version, _ := strings.Cut(strings.TrimPrefix(duckdbPackage, "@"), "@")
	manifest := filepath.Join(dir, "node_modules", "@"+name, "package.json")
	if installedVersion(manifest) == version {
		return dir, ""
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Sprintf("DuckDB (%s) is not installed in %s and there is no npm to install it", duckdbPackage, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Sprintf("cannot make %s for DuckDB: %v", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-save", "--no-package-lock", "--no-audit", "--no-fund",
		"--fetch-retries=1", "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000", duckdbPackage)
	out, err := cmd.CombinedOutput()
	if err != nil || installedVersion(manifest) != version {
		return "", fmt.Sprintf("could not install DuckDB (npm install %s into %s: %v; no network?):\n%s", duckdbPackage, dir, err, tail(string(out), 1000))
	}
	t.Logf("installed %s into %s in %s", duckdbPackage, dir, time.Since(start).Round(100*time.Millisecond))
	return dir, ""
}

// duckReport writes how TestTableReadByDuckDB ended to
// $COMPACT_DUCKDB_REPORT, when set: .ci/run prints it after the test
// run, so a skip is seen without running the test again.
func duckReport(t *testing.T, why string) {
	path := os.Getenv("COMPACT_DUCKDB_REPORT")
	if path == "" {
		return
	}
	status := "passed"
	switch {
	case why != "":
		status = "skipped: " + why
	case t.Failed():
		status = "failed"
	}
	if err := os.WriteFile(path, []byte(t.Name()+" "+status+"\n"), 0o644); err != nil {
		t.Error(err)
	}
}

func installedVersion(manifest string) string {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return ""
	}
	var m struct{ Version string }
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	return m.Version
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// duckQuery runs named queries with DuckDB in dir (testdata/duckdb/query.cjs)
// and returns each one's rows.
func duckQuery(t *testing.T, duck, dir string, queries map[string]string) map[string][]map[string]any {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "duckdb", "query.cjs"))
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(queries)
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "DUCKDB_DIR="+duck)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("DuckDB: %v\n%s", err, errOut.String())
	}
	var res map[string][]map[string]any
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("DuckDB's answer: %v\n%s", err, out.String())
	}
	return res
}

// readmeSQL returns the README's ```sql block and the Markdown table
// after it (its rows, cells trimmed).
func readmeSQL(t *testing.T) (string, [][]string) {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```sql" {
			continue
		}
		var sql []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			sql = append(sql, lines[i])
		}
		var rows [][]string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) == ""; i++ {
		}
		for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			var cells []string
			for _, c := range strings.Split(strings.Trim(strings.TrimSpace(lines[i]), "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			if !strings.HasPrefix(cells[0], "---") {
				rows = append(rows, cells)
			}
		}
		return strings.Join(sql, "\n"), rows
	}
	t.Fatal("README.md has no ```sql block")
	return "", nil
}

// jsonlRows reads every line of the files matching pattern.
func jsonlRows(t *testing.T, pattern string) []map[string]any {
	t.Helper()
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		t.Fatalf("nothing matches %s", pattern)
	}
	var rows []map[string]any
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sc := bufio.NewScanner(z)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			rows = append(rows, m)
		}
		fh.Close()
	}
	return rows
}

// lostKinds answers the README's question from the JSON Lines rows, in
// Go: per probe kind, the probes run a kept and run b lost in the same
// bundle, most first, then by kind; ten at most.
func lostKinds(rows []map[string]any, a, b string) [][]string {
	type key struct{ bundle, measure, id string }
	keptByA := map[key]bool{}
	for _, r := range rows {
		if r["run"] == a && r["kept"] == true {
			keptByA[key{r["bundle"].(string), r["measure"].(string), r["probe_id"].(string)}] = true
		}
	}
	count := map[string]int{}
	for _, r := range rows {
		if r["run"] == b && r["kept"] == false && keptByA[key{r["bundle"].(string), r["measure"].(string), r["probe_id"].(string)}] {
			count[r["probe_kind"].(string)]++
		}
	}
	var kinds []string
	for k := range count {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if count[kinds[i]] != count[kinds[j]] {
			return count[kinds[i]] > count[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	out := [][]string{{"probe_kind", "lost"}}
	for i, k := range kinds {
		if i == 10 {
			break
		}
		out = append(out, []string{k, fmt.Sprint(count[k])})
	}
	return out
}

// rowsOf turns DuckDB's rows into cells, columns in the order of head.
func rowsOf(head []string, rows []map[string]any) [][]string {
	out := [][]string{head}
	for _, r := range rows {
		var cells []string
		for _, h := range head {
			cells = append(cells, fmt.Sprint(r[h]))
		}
		out = append(out, cells)
	}
	return out
}

// sameValue compares a value of compact's JSON Lines with DuckDB's JSON
// of the Parquet row (numbers within a rounding).
func sameValue(a, b any) bool {
	x, xok := a.(float64)
	y, yok := b.(float64)
	if xok && yok {
		return x == y || math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y))
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// TestTableReadByDuckDB: the Parquet files compact eval --table writes
// are read by DuckDB, row for row as compact wrote them in the JSON
// Lines; two evals of disjoint halves of the bundles (two shards) read
// as one table equal to one eval of all; and the README's query, run
// exactly, gives on the README's runs (the sample replayed with the
// built-in model and the default pack, and with the terse pack) what Go
// finds in the rows, and what the README shows.
func TestTableReadByDuckDB(t *testing.T) {
	duck, why := duckDB(t)
	if why != "" {
		duckReport(t, why)
		t.Skip(why)
	}
	t.Cleanup(func() { duckReport(t, "") })
	sql, shown := readmeSQL(t)
	var tableArgs []string
	for _, c := range readmeCommands(t, "README.md") {
		if slices.Contains(c.args, "--table") {
			tableArgs = c.args
			break
		}
	}
	if tableArgs == nil {
		t.Fatal("README.md runs no command with --table")
	}

	work, home := t.TempDir(), t.TempDir()
	examples, _ := filepath.Abs("examples")
	if err := os.CopyFS(filepath.Join(work, "examples"), os.DirFS(examples)); err != nil {
		t.Fatal(err)
	}
	env := userEnv(home)
	channel := filepath.Join("experiments-data", "history-compression", "prerelease")
	for _, args := range [][]string{
		{"extract", "--db", filepath.Join("examples", "stagewise", "instances.sqlite")},
		{"replay", "--model", "builtin", "--pack", "default", "--run", "default-pack"},
		{"replay", "--model", "builtin", "--pack", filepath.Join("examples", "packs", "terse"), "--run", "terse-pack"},
		tableArgs, // the README's: --table results
		// Two shards: the first chat, and the two others.
		{"eval", "--run", "default-pack,terse-pack", "--table", "sharded", filepath.Join(channel, "001-paginate-the-recipe-list-server-side")},
		{"eval", "--run", "default-pack,terse-pack", "--table", "sharded", filepath.Join(channel, "002-add-dark-mode-with-a-header-toggle"), filepath.Join(channel, "003-fix-button-color-v2")},
	} {
		if out, errOut, code := runUser(t, work, env, args...); code != 0 {
			t.Fatalf("compact %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}

	probes := jsonlRows(t, filepath.Join(work, "results", "probes", "*.jsonl.gz"))
	briefings := jsonlRows(t, filepath.Join(work, "results", "briefings", "*.jsonl.gz"))
	sharded := jsonlRows(t, filepath.Join(work, "sharded", "probes", "*.jsonl.gz"))
	if parts, _ := filepath.Glob(filepath.Join(work, "sharded", "probes", "*.parquet")); len(parts) != 2 {
		t.Fatalf("two evals into sharded/ wrote %d probes files, want 2", len(parts))
	}
	readme := strings.ReplaceAll(sql, "results/", "sharded/")
	res := duckQuery(t, duck, work, map[string]string{
		"probes":    "SELECT to_json(p)::VARCHAR AS j FROM read_parquet('results/probes/*.parquet') AS p",
		"briefings": "SELECT to_json(b)::VARCHAR AS j FROM read_parquet('results/briefings/*.parquet') AS b",
		"sharded":   "SELECT count(*) AS n, count(DISTINCT part) AS parts, count(DISTINCT bundle) AS bundles FROM read_parquet('sharded/probes/*.parquet')",
		"readme":    sql,
		"readme2":   readme,
	})

	// Row for row.
	for _, tc := range []struct {
		name string
		want []map[string]any
		key  func(map[string]any) string
	}{
		{"probes", probes, func(r map[string]any) string {
			return fmt.Sprint(r["bundle"], "|", r["run"], "|", r["measure"], "|", r["probe_id"])
		}},
		{"briefings", briefings, func(r map[string]any) string { return fmt.Sprint(r["bundle"], "|", r["run"]) }},
	} {
		got := res[tc.name]
		if len(got) != len(tc.want) || len(got) == 0 {
			t.Errorf("%s: DuckDB reads %d rows, compact wrote %d", tc.name, len(got), len(tc.want))
			continue
		}
		byKey := map[string]map[string]any{}
		for _, r := range tc.want {
			byKey[tc.key(r)] = r
		}
		bad := 0
		for _, g := range got {
			var row map[string]any
			if err := json.Unmarshal([]byte(g["j"].(string)), &row); err != nil {
				t.Fatal(err)
			}
			want, ok := byKey[tc.key(row)]
			if !ok {
				t.Errorf("%s: DuckDB reads a row compact did not write: %v", tc.name, row)
				continue
			}
			if len(row) != len(want) {
				t.Errorf("%s: %d columns in DuckDB, %d in the JSON Lines", tc.name, len(row), len(want))
			}
			for col, v := range want {
				if !sameValue(v, row[col]) && bad < 10 {
					bad++
					t.Errorf("%s %s: %s is %v in DuckDB, %v in the JSON Lines", tc.name, tc.key(row), col, row[col], v)
				}
			}
		}
	}

	// The shards read as one table.
	if s := res["sharded"]; len(s) != 1 || fmt.Sprint(s[0]["n"]) != fmt.Sprint(len(probes)) || len(sharded) != len(probes) ||
		fmt.Sprint(s[0]["parts"]) != "2" || fmt.Sprint(s[0]["bundles"]) != "7" {
		t.Errorf("the two shards read as %v (their JSON Lines: %d rows); one eval wrote %d rows of 7 bundles", s, len(sharded), len(probes))
	}

	// The README's query.
	want := lostKinds(probes, "default-pack", "terse-pack")
	if len(want) < 3 {
		t.Fatalf("the fixture gives too small an answer to test the query: %v", want)
	}
	for _, name := range []string{"readme", "readme2"} {
		if got := rowsOf(want[0], res[name]); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: the README's query in DuckDB gives %v; the rows give %v", name, got, want)
		}
	}
	if !slices.EqualFunc(shown, want, slices.Equal) {
		t.Errorf("README.md shows the query's answer as %v; it is %v", shown, want)
	}
}

// TestCIInstallsTheTestsDuckDB: .ci/run installs the DuckDB the test
// reads with, where the test looks for it, so that CI does not skip it.
func TestCIInstallsTheTestsDuckDB(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{duckdbPackage, "compact-duckdb", "COMPACT_DUCKDB_DIR", "COMPACT_DUCKDB_REPORT"} {
		if !strings.Contains(string(data), want) {
			t.Errorf(".ci/run does not name %s", want)
		}
	}
}
