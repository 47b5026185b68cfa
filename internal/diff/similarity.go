package diff

import (
	"math"
	"math/bits"
)

// Similarity measures how alike A and B are: a number, not a verdict.
type Similarity struct {
	// RougeL is ROUGE-L on words, A as the reference and B as the candidate.
	RougeL RougeL `json:"rougeL"`
	// SentenceReuse is SentencesReused / SentencesA: the share of A's
	// sentences whose content reappears in B (see ReuseThreshold).
	SentenceReuse   float64 `json:"sentenceReuse"`
	SentencesA      int     `json:"sentencesA"`
	SentencesReused int     `json:"sentencesReused"`
}

// RougeL is the longest common subsequence of the two word sequences
// (Words: lower-cased runs of letters and digits, stop words included, no
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

// ReuseThreshold is the share of a sentence's distinct content words
// (ContentWords: lower-cased, stemmed, stop words left out) that one window
// of the other text (a sentence, or two consecutive sentences) must hold
// for the sentence to count as reappearing there. Headings and sentences
// without content words are not counted.
const ReuseThreshold = 0.6

// ComputeRougeL scores candidate b against reference a.
func ComputeRougeL(a, b string) RougeL {
	wa, wb := Words(a), Words(b)
	r := RougeL{WordsA: len(wa), WordsB: len(wb)}
	switch {
	case len(wa) == 0 && len(wb) == 0:
		r.Precision, r.Recall, r.F1 = 1, 1, 1
		return r
	case len(wa) == 0 || len(wb) == 0:
		return r
	}
	r.LCS = LCSLength(wa, wb)
	r.Precision = float64(r.LCS) / float64(len(wb))
	r.Recall = float64(r.LCS) / float64(len(wa))
	if r.LCS > 0 {
		r.F1 = 2 * r.Precision * r.Recall / (r.Precision + r.Recall)
	}
	r.Precision, r.Recall, r.F1 = round4(r.Precision), round4(r.Recall), round4(r.F1)
	return r
}

// LCSLength is the length of the longest common subsequence of a and b,
// computed with the bit-parallel algorithm of Allison and Dix (as given by
// Hyyrö): O(len(a)·len(b)/64) time, so two 30000-character briefings take
// well under a millisecond.
func LCSLength(a, b []string) int {
	n := len(a)
	if n == 0 || len(b) == 0 {
		return 0
	}
	nw := (n + 63) / 64
	ids := make(map[string]int32, n/4)
	sym := make([]int32, n)
	for i, w := range a {
		k, ok := ids[w]
		if !ok {
			k = int32(len(ids))
			ids[w] = k
		}
		sym[i] = k
	}
	masks := make([]uint64, len(ids)*nw) // symbol k's match mask at masks[k*nw : (k+1)*nw]
	for i, k := range sym {
		masks[int(k)*nw+i/64] |= 1 << (uint(i) % 64)
	}
	v := make([]uint64, nw)
	for i := range v {
		v[i] = math.MaxUint64
	}
	for _, w := range b {
		k, ok := ids[w]
		if !ok {
			continue
		}
		m := masks[int(k)*nw : (int(k)+1)*nw]
		var carry uint64
		for j := range v {
			old := v[j]
			u := old & m[j]
			var sum uint64
			sum, carry = bits.Add64(old, u, carry)
			v[j] = sum | (old &^ m[j])
		}
	}
	ones := 0
	for j, x := range v {
		if j == nw-1 && n%64 != 0 {
			x &= (1 << (uint(n) % 64)) - 1
		}
		ones += bits.OnesCount64(x)
	}
	return n - ones
}

// sentenceReuse counts the sentences of a (with content words) and those
// whose content reappears in b's index.
func sentenceReuse(a []sentence, b *coverIndex) (total, reused int) {
	same := make(map[string]bool, len(b.sents))
	for _, s := range b.sents {
		same[s.text] = true
	}
	for _, s := range a {
		if len(s.words) == 0 {
			continue
		}
		total++
		if same[s.text] {
			reused++
			continue
		}
		if _, ok := b.best(s.words, ReuseThreshold, false); ok {
			reused++
		}
	}
	return total, reused
}

func round4(x float64) float64 { return math.Round(x*10000) / 10000 }
