// Package eval owns probe-based evaluation of briefings (`compact eval`):
// probes mined from the compacted part of a history, whether each
// briefing answers them, and the comparison of briefings over many
// bundles.
//
// A probe is a question the agent should still be able to answer after
// compaction, with its expected answer and the message it came from
// (Probe). Probes are mined deterministically from a bundle's
// compact-history.xml (Mine): the files read, created, edited, moved or
// deleted (artifact), failed commands and whether they were fixed later,
// error identifiers, files attached, numbers and identifiers the user gave
// (recall), the user's decisions and constraints and form answers
// (decision), the last request and a question left open (continuation). A
// previous briefing inside <previous-chat-history> is history too: its
// paths, error identifiers and decisions are probes the next briefing
// should keep.
//
// The offline score (Score) says, for each probe, whether a briefing holds
// its answer: the same text (exact), the same words once case, white space
// and punctuation are ignored (normalized), the same file however it is
// written (a [](path:…) link, mount-prefixed, workspace-relative or
// absolute), or, for sentences, most of their content words in one window
// of the briefing. No model is involved; it is fast enough for thousands
// of bundles.
//
// Evaluate scores every briefing of every bundle (the app's, and each
// replay run's output.md); NewReport compares
// them: per-kind means, wins and losses per bundle, a paired bootstrap
// confidence interval on the mean difference (fixed seed), gates for CI
// (--fail-on), text, markdown and JSON.
//
// The structures leave room for a model-judged score: a probe carries its
// question, and a briefing's Answer per probe can carry a judge's answer
// and grades beside the offline verdict.
package eval
