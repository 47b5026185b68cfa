package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/replay"
	"github.com/compactlab/compact/internal/simulate"
	"github.com/compactlab/compact/internal/table"
)

// The results table (--table DIR) of eval, replay and simulate: the
// flag, the writer's name (its shard and inputs) and the line that says
// what was written. The schema and the files are internal/table's.

// tableFlag is a command's --table: the directory (none: "") and the
// command, whose --shard flag, where it has one, names the shard.
type tableFlag struct {
	Dir string
	cmd *cobra.Command
}

// addTableFlag adds --table DIR to c, for rows (what a row is), and
// checks it before the command runs.
func addTableFlag(c *cobra.Command, dst *tableFlag, rows string) {
	dst.cmd = c
	c.Flags().Var(typedString{&dst.Dir, "DIR"}, "table", "also write "+rows+" as Parquet and JSON Lines in DIR, for DuckDB, Spark or BigQuery")
	_ = c.MarkFlagDirname("table")
	pre := c.PreRunE
	c.PreRunE = func(c *cobra.Command, args []string) error {
		if err := checkTableDir(dst.Dir); err != nil {
			return err
		}
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

// shard is the shard this run is, for the table's rows and file names:
// the value of the command's --shard flag where it has one and it was
// given ("3/8"), else "" (not sharded). This is the one place that reads
// it.
func (t *tableFlag) shard() string {
	if t.cmd == nil {
		return ""
	}
	if fl := t.cmd.Flags().Lookup("shard"); fl != nil && fl.Changed {
		return fl.Value.String()
	}
	return ""
}

// checkTableDir refuses a --table that exists and is not a directory,
// before anything runs.
func checkTableDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErr("--table %s: %v", dir, err)
	case !st.IsDir():
		return usageErr("--table %s is a file, not a directory; name a directory (it is made when missing)", dir)
	}
	return nil
}

// options names the writer: its directory, shard and inputs (the
// command, then what chooses its rows). Paths are cleaned, not made
// absolute: the same command run from the same place on another
// machine names the same part.
func (t *tableFlag) options(command string, inputs ...string) table.Options {
	return table.Options{Dir: t.Dir, Shard: t.shard(), ToolVersion: Version,
		Inputs: append([]string{"compact " + command}, inputs...)}
}

// tablePaths are a command's input paths for options: the PATH
// arguments, cleaned, or the channel's directory.
func tablePaths(f *Factory, paths []string, channel string) string {
	if len(paths) == 0 {
		return "channel " + filepath.Clean(channelDir(f, channel))
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Clean(p)
	}
	return "paths " + strings.Join(out, "\x01")
}

// printTable says on stderr what the table writer wrote.
func printTable(f *Factory, command, dir string, files []table.File) {
	if f.IO.Quiet {
		return
	}
	var parts []string
	for _, x := range files {
		if x.Leftovers > 0 {
			fmt.Fprintf(f.IO.ErrOut, "compact %s: removed %s of an interrupted run beside %s\n", command, plural(x.Leftovers, "leftover"), x.Parquet)
		}
		parts = append(parts, fmt.Sprintf("%s/%s (%s)", x.Table, filepath.Base(x.Parquet), plural(int(x.Rows), "row")))
	}
	fmt.Fprintf(f.IO.ErrOut, "compact %s: table %s: %s; the same rows in .jsonl.gz beside each\n", command, dir, strings.Join(parts, ", "))
}

// writeEvalTable writes eval's probes and briefings tables.
func writeEvalTable(opts *evalOptions, results []*eval.BundleResult, rep *eval.Report) error {
	if opts.Table.Dir == "" {
		return nil
	}
	o := opts.Table.options("eval", tablePaths(opts.f, opts.Paths, opts.Channel),
		"runs "+strings.Join(opts.Runs, ","), "baseline "+rep.Baseline, "target "+strconv.Itoa(opts.Target))
	w, err := table.NewEval(o, table.EvalOptions{Baseline: rep.Baseline, Target: opts.Target})
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("eval: %v", err)}
	}
	for _, r := range results {
		if err := w.Add(r); err != nil {
			w.Abort()
			return &ExitError{Code: exitFailed, Err: fmt.Errorf("eval: %v", err)}
		}
	}
	files, err := w.Close()
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("eval: %v", err)}
	}
	printTable(opts.f, "eval", opts.Table.Dir, files)
	return nil
}

// writeReplayTable writes replay's replays table.
func writeReplayTable(opts *replayOptions, run string, items []replay.Item) error {
	if opts.Table.Dir == "" {
		return nil
	}
	o := opts.Table.options("replay", tablePaths(opts.f, opts.Paths, opts.Channel), "run "+run, "repeat "+strconv.Itoa(opts.Repeat))
	w, err := table.NewReplay(o)
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("replay: %v", err)}
	}
	for _, it := range items {
		if err := w.Add(it, run); err != nil {
			w.Abort()
			return &ExitError{Code: exitFailed, Err: fmt.Errorf("replay: %v", err)}
		}
	}
	files, err := w.Close()
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("replay: %v", err)}
	}
	printTable(opts.f, "replay", opts.Table.Dir, files)
	return nil
}

// writeSimulateTable writes simulate's simulations and compactions
// tables.
func writeSimulateTable(opts *simulateOptions, rep *simulate.Report) error {
	if opts.Table.Dir == "" {
		return nil
	}
	inputs := []string{"db " + filepath.Clean(opts.DB), "channel " + opts.Channel, "chats " + strings.Join(opts.Chats, ","),
		"jsonl " + opts.JSONL, "files " + strings.Join(opts.Files, "\x01"), "format " + opts.Format, "leaf " + opts.Leaf,
		"strategy " + opts.Strategy, "compare " + opts.Compare, "sweep " + opts.Sweep, "summarizer " + opts.Summarizer,
		"tokenizer " + opts.Tokenizer, "window " + strconv.Itoa(opts.ContextWindow), "overhead " + strconv.Itoa(opts.SystemOverhead),
		"price " + opts.PriceModel, "recorded " + strconv.FormatBool(opts.AgainstRecorded)}
	files, err := table.WriteSimulate(opts.Table.options("simulate", inputs...), rep.Outcomes())
	if err != nil {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("simulate: %v", err)}
	}
	printTable(opts.f, "simulate", opts.Table.Dir, files)
	return nil
}
