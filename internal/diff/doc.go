// Package diff owns comparing two briefings: the section diff and the
// quality measures.
//
// A comparison puts briefing A (usually a bundle's actual-output.md, what
// the app produced) beside briefing B (usually a replay's output.md) and
// measures both against the same input, the bundle's compact-history.xml:
//
//   - the section diff: both briefings split at their "## " headings,
//     sections matched by heading and reported as kept, changed (with a
//     unified diff, one sentence per line), only in A or only in B;
//   - size in UTF-16 units against the target and against the previous
//     briefing of the chain (growth and shrink);
//   - must-keep items taken from the input (paths, markdown links, colour
//     values, the previous briefing's "##" headings, the user's decisions
//     and constraints, failed tool outcomes), each kept or lost;
//   - rule checks from the prompt's own rules (XML tags, bullets, tables,
//     code blocks, other heading levels, a preamble, plain paths, and on the
//     e3e profile the closing "## Current working state" section);
//   - the similarity of A and B (ROUGE-L on words and sentence reuse).
//
// Many comparisons make a Report: a table sorted worst first with totals
// and medians, and the size of each briefing of every chain in order. The
// report renders as text (optionally coloured), markdown or JSON.
//
// Every heuristic is defined next to the code that applies it, in the
// comments of items.go, decisions.go, rules.go and similarity.go.
package diff
