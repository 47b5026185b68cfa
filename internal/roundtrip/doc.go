// Package roundtrip holds no code, only the test of a promise: what
// compact writes, compact reads. Every bundle `compact extract` writes
// from an agent's session, whatever bytes its messages hold (NUL, escape
// sequences, bytes that are not UTF-8, lines of megabytes), is read by
// replay, diff, eval and report without an error (FuzzBundleRoundTrip).
//
// It is a package of its own so that fuzzing it compiles the readers and
// the session reader, and not the command line's every dependency.
package roundtrip
