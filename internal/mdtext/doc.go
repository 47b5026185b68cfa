// Package mdtext owns the text primitives briefings are written and
// measured with: sentence splitting, mount-prefixed paths, path links.
//
// The built-in briefing writer (internal/briefing) and the measures of
// `compact diff` (internal/diff) both use these, so that what the writer
// produces passes diff's rule checks by construction: one definition of a
// sentence end, of a mount-prefixed path and of a [](path:…) link serves
// both sides.
//
// The package imports only the standard library.
package mdtext
