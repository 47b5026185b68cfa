package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/eval"
)

// compact eval --otel FILE: the scores as OpenTelemetry events
// (eval.Report.WriteOTel), written atomically beside FILE.

func addEvalOTelFlag(c *cobra.Command, opts *evalOptions) {
	c.Flags().Var(typedString{&opts.OTel, "FILE"}, "otel", "also write every score as an OpenTelemetry event (gen_ai.evaluation.result) to FILE: OTLP JSON logs, linked to the trace span a bundle came from")
	_ = c.MarkFlagFilename("otel", "json", "jsonl")
	c.MarkFlagsMutuallyExclusive("otel", "validate")
	c.MarkFlagsMutuallyExclusive("otel", "calibrate")
}

// checkEvalOTel refuses an --otel FILE that cannot be written, before
// anything is scored.
func checkEvalOTel(path string) error {
	switch {
	case path == "":
		return nil
	case path == "-":
		return usageErr("eval: --otel writes a file the collector's otlpjsonfile receiver reads: name one (stdout holds the report)")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return usageErr("eval: --otel %s is a directory; name a file, e.g. %s", path, filepath.Join(path, "eval-events.jsonl"))
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return usageErr("eval: --otel %s: no directory %s to write it in", path, filepath.Dir(path))
	}
	return nil
}

// writeEvalOTel writes the report's scores as OTLP JSON log records to
// path: into a temporary file beside it, renamed into place.
func writeEvalOTel(f *Factory, path string, rep *eval.Report) error {
	var sum eval.OTelSummary
	if err := writeBeside(f, "eval", "eval: --otel", path, func(w io.Writer) (err error) {
		sum, err = rep.WriteOTel(w, eval.OTelOptions{Service: "compact", Version: version(), Scope: "github.com/compactlab/compact/eval"})
		return err
	}); err != nil {
		return err
	}
	if !f.IO.Quiet {
		what := fmt.Sprintf("%s (%d linked to their trace span", plural(sum.Events, "evaluation event"), sum.Linked)
		if sum.Conversations > 0 {
			what += fmt.Sprintf(", %d to their conversation", sum.Conversations)
		}
		fmt.Fprintf(f.IO.ErrOut, "compact eval: wrote %s) to %s\n", what, path)
	}
	return nil
}
