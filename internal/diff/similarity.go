package diff

import (
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/mdtext"
)

// Similarity measures how alike A and B are: a number, not a verdict.
type Similarity struct {
	// RougeL is ROUGE-L on words, A as the reference and B as the candidate.
	RougeL RougeL `json:"rougeL"`
	// SentenceReuse is SentencesReused / SentencesA: the share of A's
	// sentences whose content reappears in B (see mdtext.ReuseThreshold).
	// Headings and sentences without content words are not counted.
	SentenceReuse   float64 `json:"sentenceReuse"`
	SentencesA      int     `json:"sentencesA"`
	SentencesReused int     `json:"sentencesReused"`
}

// RougeL is the longest common subsequence of the two word sequences
// (mdtext.Words: lower-cased runs of letters and digits, stop words included, no
// stemming), with precision LCS/len(B), recall LCS/len(A) and their
// harmonic mean F1. Two empty texts score 1; one empty text scores 0.
type RougeL struct {
	LCS       int     `json:"lcs"`
	WordsA    int     `json:"wordsA"`
	WordsB    int     `json:"wordsB"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// Budgets of the similarity measures. Below them a measure is exact; above
// them (a runaway answer of megabytes) it is a bounded approximation, and
// the comparison names it in Comparison.Bounded. Normal briefings (under
// 100 KB) stay far below both.
const (
	// LCSWorkBudget bounds ROUGE-L. The exact LCS costs ceil(shorter/64) ·
	// longer machine-word steps; two 100 KB briefings (about 17000 words
	// each) take about 4.5 million, the budget (2^28) a few tenths of a
	// second. Above it, see boundedLCS.
	LCSWorkBudget = 1 << 28
	// ReuseVisitBudget bounds the sentence reuse: the postings entries
	// (sentences of B holding a content word) read while looking for A's
	// sentences in B. Once it is spent, the remaining sentences of A count
	// as reused only when B holds the very same sentence.
	ReuseVisitBudget = 1 << 26
)

// The measures a comparison may report as bounded (Comparison.Bounded).
const (
	BoundedRougeL = "rougeL"
	BoundedReuse  = "sentenceReuse"
)

// ComputeRougeL scores candidate b against reference a, exactly below
// LCSWorkBudget and as a lower bound above it (see computeRougeL).
func ComputeRougeL(a, b string) RougeL {
	r, _ := computeRougeL(a, b, LCSWorkBudget)
	return r
}

// computeRougeL is ComputeRougeL with a work budget; bounded reports that
// the LCS was approximated (boundedLCS) because the exact one would cost
// more than budget.
func computeRougeL(a, b string, budget int64) (r RougeL, bounded bool) {
	d := newWordDict()
	ta, tb := d.tokens(a), d.tokens(b)
	r = RougeL{WordsA: len(ta.ids), WordsB: len(tb.ids)}
	switch {
	case len(ta.ids) == 0 && len(tb.ids) == 0:
		r.Precision, r.Recall, r.F1 = 1, 1, 1
		return r, false
	case len(ta.ids) == 0 || len(tb.ids) == 0:
		return r, false
	}
	sc := newLCSScratch(d.size())
	if lcsWork(len(ta.ids), len(tb.ids)) <= budget {
		r.LCS = sc.lcs(ta.ids, tb.ids)
	} else {
		r.LCS = boundedLCS(ta, tb, sc, budget)
		bounded = true
	}
	r.Precision = float64(r.LCS) / float64(len(tb.ids))
	r.Recall = float64(r.LCS) / float64(len(ta.ids))
	if r.LCS > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	r.Precision, r.Recall, r.F1 = round4(r.Precision), round4(r.Recall), round4(r.F1)
	return r, bounded
}

// lcsWork is the cost of the exact LCS of sequences of n and m words in
// machine-word steps.
func lcsWork(n, m int) int64 {
	if n > m {
		n, m = m, n
	}
	return int64((n+63)/64) * int64(m)
}

// wordDict numbers words (mdtext.Words: lower-cased) so that a text is held as
// 4 bytes a word.
type wordDict struct {
	ids map[string]int32
	buf []byte
}

func newWordDict() *wordDict { return &wordDict{ids: map[string]int32{}} }

func (d *wordDict) size() int { return len(d.ids) }

// tokenized is a text as word numbers, cut into segments: a segment ends
// where the text between two words holds '.', '!', '?' or a line break,
// so it is roughly a sentence or a line.
type tokenized struct {
	ids  []int32
	segs []int32 // end (exclusive) of each segment in ids; the last is len(ids)
}

func (t *tokenized) seg(k int) []int32 {
	start := int32(0)
	if k > 0 {
		start = t.segs[k-1]
	}
	return t.ids[start:t.segs[k]]
}

func (t *tokenized) segStart(k int) int {
	if k == 0 {
		return 0
	}
	return int(t.segs[k-1])
}

func (d *wordDict) id(s string, start, end int, upper bool) int32 {
	w := s[start:end]
	if upper {
		ascii := true
		for i := start; i < end; i++ {
			if s[i] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if !ascii {
			w = strings.ToLower(w)
		} else {
			d.buf = append(d.buf[:0], w...)
			for i, c := range d.buf {
				if c >= 'A' && c <= 'Z' {
					d.buf[i] = c + 'a' - 'A'
				}
			}
			if k, ok := d.ids[string(d.buf)]; ok {
				return k
			}
			w = string(d.buf)
		}
	}
	k, ok := d.ids[w]
	if !ok {
		k = int32(len(d.ids))
		d.ids[w] = k
	}
	return k
}

// tokens numbers the words of s (the same words as mdtext.Words(s)).
func (d *wordDict) tokens(s string) tokenized {
	t := tokenized{ids: make([]int32, 0, len(s)/6)}
	prevEnd := 0
	mdtext.EachWord(s, func(start, end int, upper bool) {
		if len(t.ids) > 0 {
			for i := prevEnd; i < start; i++ {
				if c := s[i]; c == '.' || c == '!' || c == '?' || c == '\n' {
					t.segs = append(t.segs, int32(len(t.ids)))
					break
				}
			}
		}
		t.ids = append(t.ids, d.id(s, start, end, upper))
		prevEnd = end
	})
	if len(t.ids) > 0 {
		t.segs = append(t.segs, int32(len(t.ids)))
	}
	return t
}

// LCSLength is the length of the longest common subsequence of a and b,
// computed with the bit-parallel algorithm of Allison and Dix (as given by
// Hyyrö): O(len(a)·len(b)/64) time, so two 30000-character briefings take
// well under a millisecond, and memory linear in len(a)+len(b).
func LCSLength(a, b []string) int {
	ids := map[string]int32{}
	num := func(ws []string) []int32 {
		out := make([]int32, len(ws))
		for i, w := range ws {
			k, ok := ids[w]
			if !ok {
				k = int32(len(ids))
				ids[w] = k
			}
			out[i] = k
		}
		return out
	}
	na, nb := num(a), num(b)
	return newLCSScratch(len(ids)).lcs(na, nb)
}

// lcsScratch holds the buffers of the bit-parallel LCS, reused across the
// calls of boundedLCS.
type lcsScratch struct {
	local []int32 // word number -> 1 + its number among the bit side's words, 0 if absent
	syms  []int32 // the word numbers set in local, to reset
	cnt   []int32 // per local symbol: occurrences, then CSR offsets
	pos   []int32 // positions of each local symbol, grouped (CSR)
	dense []int32 // per local symbol: index of its dense mask, or -1
	masks []uint64
	v     []uint64
	tmp   []uint64
}

func newLCSScratch(nsym int) *lcsScratch { return &lcsScratch{local: make([]int32, nsym)} }

// lcs is the exact LCS length of a and b. The bits run over the shorter
// sequence (n words, nw = ceil(n/64) machine words); a symbol that occurs
// at least nw times there gets a dense match mask (at most n/nw ≤ 64 such
// symbols, so 8n bytes), the others have their mask built in a scratch
// vector for each use, at a cost (their occurrences, fewer than nw) no
// larger than the step itself. Memory is thus linear, where one dense mask
// per distinct word took distinct·n/8 bytes (gigabytes for two 4 MB texts).
func (sc *lcsScratch) lcs(a, b []int32) int {
	if len(a) > len(b) {
		a, b = b, a
	}
	n := len(a)
	if n == 0 {
		return 0
	}
	nw := (n + 63) / 64
	sc.syms = sc.syms[:0]
	sc.cnt = sc.cnt[:0]
	for _, w := range a {
		if sc.local[w] == 0 {
			sc.syms = append(sc.syms, w)
			sc.local[w] = int32(len(sc.syms))
			sc.cnt = append(sc.cnt, 0)
		}
		sc.cnt[sc.local[w]-1]++
	}
	ns := len(sc.syms)
	sc.dense = sc.dense[:0]
	nd := 0
	for _, c := range sc.cnt {
		if int(c) >= nw {
			sc.dense = append(sc.dense, int32(nd))
			nd++
		} else {
			sc.dense = append(sc.dense, -1)
		}
	}
	// CSR offsets: cnt[k] becomes the start of symbol k's positions.
	off := int32(0)
	for k := 0; k < ns; k++ {
		c := sc.cnt[k]
		sc.cnt[k] = off
		off += c
	}
	sc.cnt = append(sc.cnt, off)
	sc.pos = grow32(sc.pos, n)
	fill := make([]int32, ns)
	copy(fill, sc.cnt[:ns])
	sc.masks = grow64(sc.masks, nd*nw)
	clear(sc.masks)
	for i, w := range a {
		k := sc.local[w] - 1
		sc.pos[fill[k]] = int32(i)
		fill[k]++
		if d := sc.dense[k]; d >= 0 {
			sc.masks[int(d)*nw+i/64] |= 1 << (uint(i) % 64)
		}
	}
	sc.v = grow64(sc.v, nw)
	for i := range sc.v {
		sc.v[i] = math.MaxUint64
	}
	sc.tmp = grow64(sc.tmp, nw)
	clear(sc.tmp)
	v, tmp := sc.v, sc.tmp
	for _, w := range b {
		k := sc.local[w] - 1
		if k < 0 {
			continue
		}
		var m []uint64
		var ps []int32
		if d := sc.dense[k]; d >= 0 {
			m = sc.masks[int(d)*nw : (int(d)+1)*nw]
		} else {
			ps = sc.pos[sc.cnt[k]:sc.cnt[k+1]]
			for _, i := range ps {
				tmp[i/64] |= 1 << (uint(i) % 64)
			}
			m = tmp
		}
		var carry uint64
		for j := range v {
			old := v[j]
			u := old & m[j]
			var sum uint64
			sum, carry = bits.Add64(old, u, carry)
			v[j] = sum | (old &^ m[j])
		}
		for _, i := range ps {
			tmp[i/64] = 0
		}
	}
	ones := 0
	for j, x := range v {
		if j == nw-1 && n%64 != 0 {
			x &= (1 << (uint(n) % 64)) - 1
		}
		ones += bits.OnesCount64(x)
	}
	for _, w := range sc.syms {
		sc.local[w] = 0
	}
	return n - ones
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func grow64(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// boundedWindow is the number of words of each side a gap is cut to when
// its exact LCS would overrun the budget left.
const boundedWindow = 4096

// boundedLCS approximates the LCS of two long texts from below, in time
// about linear plus budget and memory linear in their length. Their
// segments (roughly sentences, see tokenized) are aligned first: segments
// that occur exactly once on each side are matched when their order agrees
// (the longest increasing subsequence, as in a patience diff), and each
// match is extended with the equal segments before and after it. The
// matched segments count in full; between two matches, the words of the
// gap get their exact LCS while the budget lasts and then the LCS of the
// gap's first boundedWindow words on each side. The sum is the length of a
// common subsequence, so the result never exceeds the exact LCS.
func boundedLCS(a, b tokenized, sc *lcsScratch, budget int64) int {
	na, nb := len(a.segs), len(b.segs)
	ha, hb := segHashes(a), segHashes(b)
	type occ struct{ ca, cb, ia, ib int32 }
	seen := make(map[uint64]*occ, na)
	for i, h := range ha {
		o := seen[h]
		if o == nil {
			o = &occ{}
			seen[h] = o
		}
		o.ca++
		o.ia = int32(i)
	}
	for j, h := range hb {
		if o := seen[h]; o != nil {
			o.cb++
			o.ib = int32(j)
		}
	}
	// Candidates in A's order, with their B index.
	var candA, candB []int32
	for i, h := range ha {
		o := seen[h]
		if o.ca == 1 && o.cb == 1 && slices.Equal(a.seg(i), b.seg(int(o.ib))) {
			candA = append(candA, int32(i))
			candB = append(candB, o.ib)
		}
	}
	seen = nil
	anchors := lisIndexes(candB)
	segEq := func(i, j int) bool { return ha[i] == hb[j] && slices.Equal(a.seg(i), b.seg(j)) }
	total := 0
	left := budget
	gap := func(a0, a1, b0, b1 int) {
		ga, gb := a.ids[a0:a1], b.ids[b0:b1]
		if len(ga) == 0 || len(gb) == 0 {
			return
		}
		if w := lcsWork(len(ga), len(gb)); w <= left {
			left -= w
			total += sc.lcs(ga, gb)
			return
		}
		ga, gb = ga[:min(len(ga), boundedWindow)], gb[:min(len(gb), boundedWindow)]
		left -= lcsWork(len(ga), len(gb))
		total += sc.lcs(ga, gb)
	}
	pa, pb := 0, 0
	for k := 0; k <= len(anchors); k++ {
		ia, ib := na, nb
		if k < len(anchors) {
			ia, ib = int(candA[anchors[k]]), int(candB[anchors[k]])
		}
		for pa < ia && pb < ib && segEq(pa, pb) {
			total += len(a.seg(pa))
			pa, pb = pa+1, pb+1
		}
		ea, eb := ia, ib
		for ea > pa && eb > pb && segEq(ea-1, eb-1) {
			total += len(a.seg(ea - 1))
			ea, eb = ea-1, eb-1
		}
		gap(a.segStart(pa), a.segStart(ea), b.segStart(pb), b.segStart(eb))
		if k < len(anchors) {
			total += len(a.seg(ia))
			pa, pb = ia+1, ib+1
		}
	}
	return total
}

// segHashes hashes each segment's word numbers (FNV-1a over 32-bit words).
func segHashes(t tokenized) []uint64 {
	out := make([]uint64, len(t.segs))
	for k := range t.segs {
		h := uint64(14695981039346656037)
		for _, w := range t.seg(k) {
			h ^= uint64(uint32(w))
			h *= 1099511628211
		}
		out[k] = h
	}
	return out
}

// lisIndexes returns the indexes of a longest strictly increasing
// subsequence of xs, in order (patience sorting, O(n log n)).
func lisIndexes(xs []int32) []int32 {
	tails := []int32{} // index into xs of the smallest tail of each length
	prev := make([]int32, len(xs))
	for i, x := range xs {
		lo, hi := 0, len(tails)
		for lo < hi {
			mid := (lo + hi) / 2
			if xs[tails[mid]] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			prev[i] = tails[lo-1]
		} else {
			prev[i] = -1
		}
		if lo == len(tails) {
			tails = append(tails, int32(i))
		} else {
			tails[lo] = int32(i)
		}
	}
	out := make([]int32, len(tails))
	if len(tails) == 0 {
		return out
	}
	k := tails[len(tails)-1]
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = k
		k = prev[k]
	}
	return out
}

// sentenceReuse counts the sentences of a (with content words) and those
// whose content reappears in b's index. Once the queries have read budget
// postings entries, the remaining sentences are only looked up as the
// very same sentence, and bounded is true.
func sentenceReuse(a, b *mdtext.Briefing, budget int64) (total, reused int, bounded bool) {
	same := make(map[string]bool, len(b.Sentences()))
	for _, s := range b.Sentences() {
		same[s.Text] = true
	}
	start := b.Visits()
	for _, s := range a.Sentences() {
		if len(s.Words) == 0 {
			continue
		}
		total++
		if same[s.Text] {
			reused++
			continue
		}
		if b.Visits()-start >= budget {
			bounded = true
			continue
		}
		if b.Reappears(s.Words) {
			reused++
		}
	}
	return total, reused, bounded
}

func round4(x float64) float64 { return math.Round(x*10000) / 10000 }
