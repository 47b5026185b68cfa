package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/table"
)

// tableFiles lists the Parquet files of one table under dir.
func tableFiles(t *testing.T, dir, name string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, name, "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tableRows reads every row of one table under dir.
func tableRows[T any](t *testing.T, dir, name string) []T {
	t.Helper()
	var rows []T
	for _, f := range tableFiles(t, dir, name) {
		r, err := parquet.ReadFile[T](f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
	}
	return rows
}

// TestTableFlag: --table of replay, eval and simulate on the shipped
// sample writes each table's rows, and the same command again replaces
// its files.
func TestTableFlag(t *testing.T) {
	t.Parallel()
	sample := evalSample(t) // extracted and replayed with builtin: 7 bundles
	dir := filepath.Join(t.TempDir(), "results")

	code, _, errOut := diffRun(t, nil, "replay", sample, "--model", "builtin", "--run", "again", "--table", dir)
	if code != 0 {
		t.Fatalf("replay --table: exit %d: %s", code, errOut)
	}
	reps := tableRows[table.ReplayRow](t, dir, table.Replays)
	if len(reps) != 7 {
		t.Fatalf("%d replay rows, want 7", len(reps))
	}
	for _, r := range reps {
		if r.Status != "ok" || r.Run != "again" || r.Model == nil || *r.Model != "builtin" || r.OutputChars == 0 || r.Part == "" {
			t.Errorf("replay row %+v", r)
		}
	}

	for range 2 { // the second run replaces the first's files
		code, _, errOut = diffRun(t, nil, "eval", sample, "--table", dir)
		if code != 0 {
			t.Fatalf("eval --table: exit %d: %s", code, errOut)
		}
	}
	if !strings.Contains(errOut, "compact eval: table "+dir+": probes/part-all-") || !strings.Contains(errOut, "briefings/part-all-") {
		t.Errorf("eval's stderr does not say what it wrote: %q", errOut)
	}
	if n := len(tableFiles(t, dir, table.Briefings)); n != 1 {
		t.Errorf("%d briefings files after the same eval twice, want 1", n)
	}
	briefings := tableRows[table.BriefingRow](t, dir, table.Briefings)
	var runs []string
	for _, b := range briefings {
		if !slices.Contains(runs, b.Run) {
			runs = append(runs, b.Run)
		}
	}
	slices.Sort(runs)
	if len(briefings) != 21 || !slices.Equal(runs, []string{"actual", "again", "builtin"}) {
		t.Errorf("%d briefing rows of %v, want 21 of actual, again, builtin", len(briefings), runs)
	}
	probes := tableRows[table.ProbeRow](t, dir, table.Probes)
	// The sample: 36 grounded and 106 coverage probes (README), for each
	// of the three briefings.
	if len(probes) != 3*(36+106) {
		t.Errorf("%d probe rows, want %d", len(probes), 3*(36+106))
	}

	db := filepath.Join("..", "examples", "stagewise", "instances.sqlite")
	code, _, errOut = diffRun(t, nil, "simulate", "--db", db, "--compare", "stagewise,sliding-window", "--context-window", "6000", "--table", dir)
	if code != 0 {
		t.Fatalf("simulate --table: exit %d: %s", code, errOut)
	}
	sims := tableRows[table.SimulationRow](t, dir, table.Simulations)
	comps := tableRows[table.CompactionRow](t, dir, table.Compactions)
	total := int32(0)
	for _, s := range sims {
		total += s.Compactions
	}
	scored := 0
	for _, c := range comps {
		if c.Strategy == "stagewise" {
			scored++
		}
	}
	// README: the six chats compact 19 times under stagewise, every
	// compaction scored.
	if len(sims) != 12 || scored != 19 || total < 19 {
		t.Errorf("%d simulation rows, %d stagewise compaction rows, %d compactions in all", len(sims), scored, total)
	}
}

func TestTableFlagUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"eval", empty, "--table", file}, "--table " + file + " is a file, not a directory"},
		{[]string{"replay", empty, "--model", "builtin", "--table", file}, "is a file, not a directory"},
		{[]string{"eval", "--validate", "--table", empty}, "[table validate]"},
		{[]string{"replay", "--dry-run", "--table", empty}, "[table dry-run]"},
	} {
		code, out, errOut := diffRun(t, nil, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.msg) || out != "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errOut, tc.msg)
		}
	}
}

// TestTableShardHook: the shard of a command's --shard flag names the
// table's files, and nothing when it has none or it is not given.
func TestTableShardHook(t *testing.T) {
	for _, tc := range []struct {
		flag bool
		args []string
		want string
	}{
		{false, nil, ""},
		{true, nil, ""},
		{true, []string{"--shard", "3/8"}, "3/8"},
	} {
		var tf tableFlag
		c := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		addTableFlag(c, &tf, "rows")
		if tc.flag {
			c.Flags().String("shard", "", "")
		}
		c.SetArgs(tc.args)
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		o := tf.options("eval", "paths x")
		if tf.shard() != tc.want || o.Shard != tc.want || !strings.HasPrefix(o.Part(), "part-"+table.ShardLabel(tc.want)+"-") {
			t.Errorf("%v: shard %q, part %s; want %q", tc.args, tf.shard(), o.Part(), tc.want)
		}
	}
}
