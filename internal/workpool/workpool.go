// Package workpool owns the one way compact spreads independent items
// (bundles to compare, evaluate or judge) over goroutines: a fixed number
// of workers taking item indexes in order, with progress reported one
// call at a time. It knows nothing of what an item is.
package workpool

import (
	"runtime"
	"sync"
)

// Each calls fn(i) for every i in [0, n) on workers goroutines
// (GOMAXPROCS when workers <= 0, never more than n), and progress(done, n)
// after each item when progress is set, one call at a time. When stop is
// set and returns true, no further item is handed out (those under way
// finish). It returns when every item handed out is done.
func Each(n, workers int, fn func(i int), progress func(done, total int), stop func() bool) {
	if n <= 0 {
		return
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		if stop != nil && stop() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
}
