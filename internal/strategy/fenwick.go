package strategy

// fenwick is a Fenwick (binary indexed) tree of non-negative token counts:
// appending, changing one count and the sum of the first i counts each
// take O(log n). The strategies that rewrite messages in the middle of
// their view use it for the tokens before a position (what a compaction
// left unchanged at the head of the view) and to find where a tail of a
// given size starts.
type fenwick struct {
	t []float64 // 1-based partial sums
	v []float64 // the counts
}

func (f *fenwick) len() int { return len(f.v) }

// push appends x.
func (f *fenwick) push(x float64) {
	f.v = append(f.v, x)
	n := len(f.v)
	// t[n] covers (n - lowbit(n), n]: the sum of the nodes it spans plus x.
	s := x
	for j := n - 1; j > n-(n&-n); j -= j & -j {
		s += f.t[j-1]
	}
	f.t = append(f.t, s)
}

// set changes the i-th count (0-based) to x.
func (f *fenwick) set(i int, x float64) {
	d := x - f.v[i]
	if d == 0 {
		return
	}
	f.v[i] = x
	for j := i + 1; j <= len(f.t); j += j & -j {
		f.t[j-1] += d
	}
}

// prefix is the sum of the first i counts.
func (f *fenwick) prefix(i int) float64 {
	s := 0.0
	for j := min(i, len(f.t)); j > 0; j -= j & -j {
		s += f.t[j-1]
	}
	return s
}

// sum is the sum of counts lo..hi-1.
func (f *fenwick) sum(lo, hi int) float64 {
	if hi <= lo {
		return 0
	}
	return f.prefix(hi) - f.prefix(lo)
}

// search is the smallest i such that prefix(i) >= target (len when
// none): the counts are non-negative, so prefix grows with i.
func (f *fenwick) search(target float64) int {
	if target <= 0 {
		return 0
	}
	n := len(f.t)
	pos, acc := 0, 0.0
	step := 1
	for step*2 <= n {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next <= n && acc+f.t[next-1] < target {
			pos, acc = next, acc+f.t[next-1]
		}
	}
	// prefix(pos) < target <= prefix(pos+1)
	return min(pos+1, n)
}
