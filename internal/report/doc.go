// Package report owns `compact report`: one self-contained static HTML
// page over a set of bundles, their replay runs and simulate results, for
// a person to compare briefings by eye and share them.
//
// Build reads the bundles (on a worker pool) and measures each briefing
// with what compact already has: internal/eval's probes and offline
// scores (and the judge's records, <bundle>/judge/<name>.json, where they
// are), internal/diff's comparison of the app's briefing with each run
// (section diff, must-keep items, leaks, rules, size against the target),
// and the replay records (model, pack, tokens, cost). ReadSimulation reads
// `compact simulate --json` files. WriteHTML renders the page:
//
//   - an overview: the briefings side by side (actual and each run:
//     models, packs, cost, tokens, sizes against the target, must-keep
//     items, rules, leaks, offline probe scores per kind and judged scores),
//     and their distributions as small inline SVG charts;
//   - the bundles, worst first, each a <details> whose body (both
//     briefings side by side with the section diff highlighted, leaks and
//     broken rules marked on their lines, the probes kept and lost, the
//     compact history) is rendered here, gzipped and embedded as base64,
//     and unpacked by a few lines of JavaScript when it is opened, so that
//     a page of thousands of bundles loads at once;
//   - the chains: briefing size and probe score along each chat's
//     compressions;
//   - simulate: context tokens over the steps per strategy, with where each
//     compacted and where the app really did (the bundles' boundaries).
//
// Every text from the inputs goes through html/template or is escaped
// where the charts are built; the page loads nothing (a Content Security
// Policy forbids it: no network, no other script than its own).
package report
