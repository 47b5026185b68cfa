//go:build race

package testfiles

// Race tells a test whether the race detector is on. It makes every
// memory access about ten times slower; it finds data races where
// goroutines share memory, not in larger inputs of code that runs on one
// goroutine. Tests use it to run smaller single-goroutine inputs under
// `go test -race` and keep their full sizes in the run without it.
const Race = true
