package agentbundle

import (
	"context"
	"fmt"
	"strings"

	"github.com/compactlab/compact/internal/agents"
	"github.com/compactlab/compact/internal/extract"
)

// OpenInference is the other name --from takes for traces: OpenInference
// spans are OTLP traces, read by the same reader as the GenAI
// conventions' (agents.OTel).
const OpenInference = "openinference"

// Resolve is the agent a --from name reads: openinference is otel, any
// other name itself.
func Resolve(name string) string {
	if name == OpenInference {
		return agents.OTel
	}
	return name
}

// FromNames are the names --from takes: Agents, with OpenInference after
// otel.
func FromNames() []string {
	var out []string
	for _, a := range Agents {
		out = append(out, a)
		if a == agents.OTel {
			out = append(out, OpenInference)
		}
	}
	return out
}

// traceRun bundles the conversations of OpenTelemetry trace files
// (--from otel): a file holds any number of conversations, each a chat of
// its own. A conversation whose spans record no message content gets no
// bundle; its file says so once.
type traceRun struct {
	run       *agents.OTelRun
	files     int // files read
	noCalls   int // files without a model call
	noContent int // files whose conversations all hold no content
}

// file writes the bundles of the conversations of one trace file.
func (tr *traceRun) file(ctx context.Context, opts Options, path string, out *extract.Output, chats *int, sum *Summary, warn func(string, ...any)) error {
	tr.files++
	f, err := tr.run.Read(path)
	if err != nil {
		warn("%v; skipped", err)
		return nil
	}
	for _, p := range f.Problems {
		warn("%s: %s", path, p)
	}
	if f.Calls == 0 {
		tr.noCalls++
		warn("%s: no model call among its %s (no span is a GenAI chat call or an OpenInference LLM span, no log record a GenAI event); skipped", path, plural(f.Spans, "span"))
		return nil
	}
	empty := 0
	for _, s := range f.Sessions {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.NoContent != "" {
			empty++
			continue
		}
		for _, p := range s.Problems {
			warn("%s: conversation %s: %s", path, s.ID, p)
		}
		w := &sessionWriter{opts: opts, warn: warn, out: out, chats: chats, file: path}
		if err := w.whole(s); err != nil {
			return err
		}
		sum.add(w)
	}
	if empty > 0 {
		what := path + " holds no message content"
		if empty < len(f.Sessions) {
			what = fmt.Sprintf("%s: %d of its %d conversations hold no message content", path, empty, len(f.Sessions))
		} else {
			tr.noContent++
		}
		warn("%s: %s; without the history there is no bundle, but compact simulate %s still reads its token side: each call's usage, where it compacted, when each strategy would first compact, the recorded cost", what, agents.NoContent, path)
	}
	return nil
}

// why says why nothing was bundled from the traces under paths.
func (tr *traceRun) why(paths []string) string {
	where := strings.Join(paths, ", ")
	switch {
	case tr.noContent > 0 && tr.noCalls == 0:
		return fmt.Sprintf("no trace under %s records message content, so there is no history to bundle", where)
	case tr.noContent > 0:
		return fmt.Sprintf("no trace under %s records message content or a model call, so there is no history to bundle", where)
	}
	return fmt.Sprintf("no trace under %s records a model call (a GenAI chat span or an OpenInference LLM span)", where)
}
