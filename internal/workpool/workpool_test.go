package workpool

import (
	"sync/atomic"
	"testing"
)

func TestEachRunsEveryItemOnceAndReportsProgressInOrder(t *testing.T) {
	for _, workers := range []int{0, 1, 3, 100} {
		seen := make([]int32, 50)
		var last int
		Each(50, workers, func(i int) { atomic.AddInt32(&seen[i], 1) }, func(done, total int) {
			if done != last+1 || total != 50 {
				t.Errorf("progress %d/%d after %d", done, total, last)
			}
			last = done
		}, nil)
		for i, n := range seen {
			if n != 1 {
				t.Errorf("workers %d: item %d ran %d times", workers, i, n)
			}
		}
	}
	var ran atomic.Int32
	Each(100, 1, func(int) { ran.Add(1) }, nil, func() bool { return ran.Load() >= 10 })
	if n := ran.Load(); n < 10 || n > 11 {
		t.Errorf("stop: %d items ran", n)
	}
	Each(0, 4, func(int) { t.Error("ran an item of none") }, nil, nil)
}
