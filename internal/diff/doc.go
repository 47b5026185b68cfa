// Package diff owns comparing two briefings: the section diff, the
// quality measures side by side, similarity and the report.
//
// A comparison puts briefing A (usually the briefing a bundle holds, what
// the app produced: bundle.FileActual) beside briefing B (usually a
// replay's output.md) and measures both against the same input, the
// bundle's compact-history.xml:
//
//   - the section diff: both briefings split at their "## " headings,
//     sections matched by heading and reported as kept, changed (with a
//     unified diff, one sentence per line), only in A or only in B;
//   - size in UTF-16 units against the target and against the previous
//     briefing of the chain (growth and shrink);
//   - must-keep items taken from the input (paths, markdown links, colour
//     values, the previous briefing's "##" headings, the user's decisions
//     and constraints, failed tool outcomes), each kept or lost
//     (mdtext.Needs, mdtext.Briefing.Keeps);
//   - rule checks from the prompt's own rules (XML tags, bullets, tables,
//     code blocks, other heading levels, a preamble, plain paths, and on the
//     e3e profile the closing "## Current working state" section:
//     mdtext.CheckRules);
//   - the similarity of A and B (ROUGE-L on words and sentence reuse).
//
// B comes from a bundle's replays/<run>/ directory: the run asked for, or
// by default the newest run that has an answer (an output.md). A replay
// that failed leaves only its replay.json; it is passed over, and a bundle
// with no answered run is a NoAnswerError (BundleError.NoAnswer) that
// lists the runs it has, so that the caller can say which runs exist.
//
// Many comparisons make a Report: a table sorted worst first with totals
// and medians, and the size of each briefing of every chain in order. The
// report renders as text (optionally coloured), markdown or JSON. The
// summary (TextOptions.Stat over more than one comparison, WriteStatJSON)
// is a screenful whatever the number of bundles: totals, medians, the
// worst bundles and the chains where B outgrows A most.
//
// What one briefing or one compact history holds (sentences, sections,
// content words, decisions, must-keep items, rule violations) is the text
// model of internal/mdtext; this package puts two briefings side by side.
// Every heuristic is defined next to the code that applies it: the
// must-keep items, decisions and rules in the comments of mdtext's
// items.go, decisions.go and rules.go, the similarity in similarity.go.
package diff
