package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/bundle"
	"github.com/compactlab/compact/internal/eval"
	"github.com/compactlab/compact/internal/fsutil"
	"github.com/compactlab/compact/internal/shard"
)

// maxGradesFile bounds a --calibrate file.
const maxGradesFile = 64 << 20

// runEvalValidity runs --validate or --calibrate.
func runEvalValidity(c *cobra.Command, opts *evalOptions) error {
	f := opts.f
	format, err := outputFormat(c, f, "eval", opts.Format)
	if err != nil {
		return err
	}
	if opts.Calibrate != "" {
		if opts.Shard.active() {
			return usageErr("eval: --calibrate scores the bundles its grades name: it takes no --shard or --sample (set in the flags or shard, sample.size of the configuration)")
		}
		return runEvalCalibrate(f, opts, format)
	}
	var sel *shard.Selection
	dirs, err := findPickedBundles(f, opts.Paths, opts.Channel, opts.Shard.picker(&sel))
	if err != nil {
		return err
	}
	if len(dirs) == 0 && sel != nil {
		return emptySelection(f, sel)
	}
	prog := newProgress(f.IO)
	prog.show("eval --validate: %s", plural(len(dirs), "bundle"))
	rep, bad := eval.Validate(dirs, eval.ValidateOptions{Target: opts.Target, Workers: opts.Jobs})
	prog.clear()
	for _, e := range bad {
		fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %s\n", e.Bundle, e.Error)
	}
	if rep.Bundles == 0 {
		return usageErr("eval: --validate: none of the %s has a recorded briefing (%s) to build a ladder from", plural(len(dirs), "bundle"), bundle.FileActual)
	}
	rep.Selection = sel
	if format == "json" {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.WriteText(f.IO.TextOut(), commonDir(dirs))
	}
	if err != nil {
		return err
	}
	g := rep.Measures[0]
	var missed []string
	if g.Pairs > 0 && g.Concordance < eval.ValidConcordance {
		missed = append(missed, fmt.Sprintf("the grounded concordance is %.3f, under %.2f", g.Concordance, eval.ValidConcordance))
	}
	if g.DumpAtOrAbove > 0 {
		missed = append(missed, fmt.Sprintf("a history dump scores at or above the recorded briefing in %d of %s", g.DumpAtOrAbove, plural(g.DumpChecked, "bundle")))
	}
	if len(bad) > 0 {
		missed = append(missed, fmt.Sprintf("%d of %s not read", len(bad), plural(len(dirs), "bundle")))
	}
	if len(missed) > 0 {
		return &ExitError{Code: exitFailed, Err: errors.New("eval: --validate: " + strings.Join(missed, "; "))}
	}
	return nil
}

// runEvalCalibrate compares the measures with a file of human grades.
func runEvalCalibrate(f *Factory, opts *evalOptions, format string) error {
	file, err := fsutil.OpenInputMax(opts.Calibrate, maxGradesFile)
	if err != nil {
		return usageErr("eval: --calibrate: %v", err)
	}
	data, err := io.ReadAll(file)
	file.Close()
	if err != nil {
		return usageErr("eval: --calibrate: %v", err)
	}
	grades, err := eval.ParseHumanGrades(opts.Calibrate, data)
	if err != nil {
		return usageErr("eval: --calibrate: %v", err)
	}
	cache := map[string]map[string]map[string]float64{}
	score := func(b, briefing string) map[string]float64 {
		dir := resolveBundle(b, opts.Paths)
		if dir == "" {
			return nil
		}
		sc, ok := cache[dir]
		if !ok {
			if sc, err = eval.CalibrationScores(dir, opts.Target); err != nil {
				fmt.Fprintf(f.IO.ErrOut, "compact eval: %s: %v\n", dir, err)
			}
			cache[dir] = sc
		}
		return sc[briefing]
	}
	rep := eval.Calibrate(grades, eval.CalibrationMeasures, score, 3)
	if format == "json" {
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if err := rep.WriteText(f.IO.TextOut()); err != nil {
		return err
	}
	if rep.Matched == 0 {
		return usageErr("eval: --calibrate: no graded briefing found; name each bundle by its directory, relative to here or to a PATH given, and each briefing as actual or a run")
	}
	return nil
}

// resolveBundle finds the bundle a grades file names: the path as
// written, else under each root given; "" when none is a bundle.
func resolveBundle(name string, roots []string) string {
	cands := []string{name}
	if !filepath.IsAbs(name) {
		for _, r := range roots {
			cands = append(cands, filepath.Join(r, name))
		}
	}
	for _, c := range cands {
		if st, err := os.Stat(filepath.Join(c, bundle.FileCompact)); err == nil && st.Mode().IsRegular() {
			return filepath.Clean(c)
		}
	}
	return ""
}
