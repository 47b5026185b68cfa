package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/compactlab/compact/internal/sample"
)

func init() { register(newCmdSampleDB) }

type sampleDBOptions struct {
	f               *Factory
	Out             string
	Chats           int
	MessagesPerChat int
	Seed            int64
	SchemaVersion   int
	Force           bool
}

// DefaultSampleDBPath is the shipped sample, in compact's source tree
// (what `compact sample-db --out examples/stagewise/instances.sqlite
// --force` writes).
const DefaultSampleDBPath = "examples/stagewise/instances.sqlite"

// sampleDBOut is where sample-db writes without --out: a new file in the
// working directory, never the shipped sample (an existing file is
// replaced only with --force).
const sampleDBOut = "instances.sqlite"

func newCmdSampleDB(f *Factory) *cobra.Command {
	opts := &sampleDBOptions{f: f}
	c := &cobra.Command{
		Use:   "sample-db",
		Short: "Write a synthetic stagewise agent database",
		Long: "Writes a synthetic stagewise instances.sqlite (schema v9 unless\n" +
			"--schema-version says otherwise). Without --chats it writes the shipped\n" +
			"sample: six realistic chats about a small web project, with chained\n" +
			"compression points, a child agent, a short chat and a post-v7 chat whose\n" +
			"legacy history column is stale. With --chats it generates a big database\n" +
			"for benchmarks (about 1.1 MB per chat of 200 messages). The output is\n" +
			"deterministic: the same options give the same bytes.",
		Example: "  compact sample-db                     # ./instances.sqlite\n" +
			"  compact sample-db --out /tmp/big.sqlite --chats 1800   # about 2 GB",
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runSampleDB(opts) },
	}
	fl := c.Flags()
	fl.StringVar(&opts.Out, "out", sampleDBOut, "write the database to `PATH`, a new file unless --force")
	fl.BoolVar(&opts.Force, "force", false, "replace --out if it exists")
	fl.IntVar(&opts.Chats, "chats", 0, "generate `N` chats (0: write the shipped sample)")
	fl.IntVar(&opts.MessagesPerChat, "messages-per-chat", 0, fmt.Sprintf("`N` messages per generated chat (default %d)", sample.DefaultMessagesPerChat))
	fl.Int64Var(&opts.Seed, "seed", 0, "`SEED` of every random choice")
	fl.IntVar(&opts.SchemaVersion, "schema-version", sample.DefaultSchemaVersion,
		fmt.Sprintf("schema `VERSION` and its column layout (%d..%d)", sample.MinSchemaVersion, sample.MaxSchemaVersion))
	_ = c.MarkFlagFilename("out", "sqlite", "db")
	return c
}

type sampleDBResult struct {
	Path              string `json:"path"`
	SchemaVersion     int    `json:"schemaVersion"`
	Chats             int    `json:"chats"`
	Messages          int    `json:"messages"`
	CompressionPoints int    `json:"compressionPoints"`
	Bytes             int64  `json:"bytes"`
}

func runSampleDB(opts *sampleDBOptions) error {
	switch {
	case opts.Out == "":
		return usageErr("--out: empty path")
	case opts.Chats < 0:
		return usageErr("--chats: %d is negative", opts.Chats)
	case opts.MessagesPerChat < 0:
		return usageErr("--messages-per-chat: %d is negative", opts.MessagesPerChat)
	case opts.MessagesPerChat > 0 && opts.Chats == 0:
		return usageErr("--messages-per-chat needs --chats")
	case opts.SchemaVersion < sample.MinSchemaVersion || opts.SchemaVersion > sample.MaxSchemaVersion:
		return usageErr("--schema-version: %d not supported (want %d..%d)", opts.SchemaVersion, sample.MinSchemaVersion, sample.MaxSchemaVersion)
	}
	// An existing file is replaced only with --force (as extract's
	// output directory): exit 1, nothing written.
	if _, err := os.Lstat(opts.Out); err == nil && !opts.Force {
		return fmt.Errorf("%s exists; pass --force to replace it, or --out another path", opts.Out)
	}
	if err := os.MkdirAll(filepath.Dir(opts.Out), 0o755); err != nil {
		return err
	}
	// What killed runs for the same output left beside it (their
	// half-written databases) goes first, unless a live run holds it.
	errOut := opts.f.IO.ErrOut
	n, err := sample.CleanLeftovers(opts.Out)
	if err != nil {
		fmt.Fprintf(errOut, "compact sample-db: warning: leftovers of an interrupted run: %v\n", err)
	}
	if n > 0 {
		fmt.Fprintf(errOut, "compact sample-db: removed %s of an interrupted run beside %s\n", plural(n, "leftover"), opts.Out)
	}
	st, err := sample.WriteStats(opts.Out, sample.Options{
		Chats: opts.Chats, MessagesPerChat: opts.MessagesPerChat, Seed: opts.Seed, SchemaVersion: opts.SchemaVersion,
	})
	if err != nil {
		return err
	}
	res := sampleDBResult{Path: opts.Out, SchemaVersion: opts.SchemaVersion, Chats: st.Chats, Messages: st.Messages,
		CompressionPoints: st.CompressionPoints, Bytes: st.Bytes}
	out := opts.f.IO.Out
	if opts.f.JSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	_, err = fmt.Fprintf(opts.f.IO.TextOut(), "wrote %s: schema v%d, %s, %s, %s, %s\n",
		res.Path, res.SchemaVersion, plural(res.Chats, "chat"), plural(res.Messages, "message"),
		plural(res.CompressionPoints, "compression point"), plural(int(res.Bytes), "byte"))
	return err
}
