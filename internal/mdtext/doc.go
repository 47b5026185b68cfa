// Package mdtext owns the text model of briefings and compact histories:
// what one briefing or one compact history says, read one way for all.
//
// A briefing (markdown) is read as:
//   - sentences and words: Sentences, SplitSentences, SentenceLines, Words,
//     ContentWords (sentences.go, words.go);
//   - "## " sections: SplitSections (sections.go);
//   - mount-prefixed paths and [](path:…) links: MountPathAt, GluedBefore,
//     PathLink, LinkPath (paths.go, links.go, scan.go);
//   - the prompt's output rules it breaks, per profile: CheckRules, Leaks
//     (rules.go).
//
// A compact history (compact-history.xml) is read as:
//   - the previous briefing and the turns: ParseHistory (history.go);
//   - the decisions of the user's turns: Decisions, IsDecision
//     (decisions.go);
//   - the must-keep items a briefing written from it should keep:
//     MustKeep, Needs (items.go, toolpaths.go); whether a briefing keeps
//     each, Briefing.Keeps (keep.go).
//
// The built-in briefing writer (internal/briefing), the comparison of
// `compact diff` (internal/diff), the probes of `compact eval`
// (internal/eval) and the retention measure of simulations
// (internal/convo) all read text through this package, so that what the
// writer produces passes diff's rule checks by construction and every
// measure counts the same sentence, path, decision and item.
//
// The package imports only the standard library.
package mdtext
