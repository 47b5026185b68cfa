package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/dustin/go-humanize"

	"github.com/compactlab/compact/internal/diff"
)

// thousands writes n with commas: 12,345.
func thousands(n int64) string { return humanize.Comma(n) }

// kSize is diff.KSize of x rounded.
func kSize(x float64) string { return diff.KSize(int(math.Round(x))) }

// usd is a cost: $0, $0.0042, $1.27.
func usd(x float64) string {
	switch {
	case x == 0:
		return "$0"
	case x < 0.01:
		return "$" + strconv.FormatFloat(x, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(x, 'f', 2, 64)
}

// pct is a share as a whole percentage: 97%.
func pct(x float64) string { return strconv.Itoa(int(math.Round(x*100))) + "%" }

// score is a probe score with three decimals.
func score(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

// signed is a difference with its sign: +0.040, -0.052.
func signed(x float64) string { return fmt.Sprintf("%+.3f", x) }

// bytesText is a byte count: 812 B, 4.1 KiB, 12.0 MiB.
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// quantile is the q-quantile of sorted xs (linear between neighbours).
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

func sortedCopy(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

func median(xs []float64) float64 { return quantile(sortedCopy(xs), 0.5) }

// scoreClass grades a probe score for its colour.
func scoreClass(x float64) string {
	switch {
	case x >= 0.95:
		return "good"
	case x >= 0.8:
		return "fair"
	}
	return "poor"
}

// count is "1 compaction", "2 compactions".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
