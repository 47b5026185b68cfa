package sample

// rng is SplitMix64: tiny, fast, and fully specified here, so a seed gives
// the same bytes with every Go version (math/rand makes no such promise
// for its helpers).
type rng struct{ s uint64 }

func newRNG(seed int64) *rng { return &rng{s: uint64(seed) ^ 0x5851f42d4c957f2d} }

func (r *rng) u64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int { return int(r.u64() % uint64(n)) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance is true with probability p/100.
func (r *rng) chance(p int) bool { return r.intn(100) < p }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// id returns n random characters from alphabet.
func (r *rng) id(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.intn(len(alphabet))]
	}
	return string(b)
}

// uuid returns a random version-4 UUID string.
func (r *rng) uuid() string {
	const hex = "0123456789abcdef"
	a, b := r.u64(), r.u64()
	var out [36]byte
	j := 0
	for i := 0; i < 32; i++ {
		var nib uint64
		if i < 16 {
			nib = (a >> (60 - 4*uint(i))) & 0xf
		} else {
			nib = (b >> (60 - 4*uint(i-16))) & 0xf
		}
		if i == 12 {
			nib = 4
		}
		if i == 16 {
			nib = 8 | (nib & 3)
		}
		if i == 8 || i == 12 || i == 16 || i == 20 {
			out[j] = '-'
			j++
		}
		out[j] = hex[nib]
		j++
	}
	return string(out[:])
}
