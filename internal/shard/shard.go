// Package shard owns the partition and the sample: which of N shards a
// unit of work belongs to (`--shard K/N`, by a hash of the unit's key, so
// that N jobs of any scheduler cover a set exactly once), and a
// stratified, seeded sample of units (`--sample N --strata ... --seed S`).
// A unit is what must stay whole: a chat with all its compactions, a
// session file. The package knows nothing of what a unit holds; the
// commands' packages say what its key and its attributes are. Standard
// library only.
//
// The assignment, for other tools to reproduce: a unit with key KEY (its
// UTF-8 bytes, nothing added) is in shard
//
//	uint64(first 8 bytes of SHA-256(KEY), big-endian) mod N
//
// counted from 0. In Python:
//
//	int(hashlib.sha256(key.encode()).hexdigest()[:16], 16) % n
//
// and in a shell, for N a power of two (its arithmetic is signed):
//
//	h=$(printf %s "$KEY" | sha256sum | cut -c1-16); echo $(( 0x$h & (N-1) ))
package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Spec is one shard of a partition: K of N, K counted from 0 (as
// Kubernetes' JOB_COMPLETION_INDEX and GitHub Actions' strategy.job-index
// are). The zero Spec is the whole set.
type Spec struct {
	K, N int
}

// MaxShards bounds N: more shards than that is a typo.
const MaxShards = 1 << 20

// Parse reads "K/N" (0 <= K < N). "" is the zero Spec (no sharding).
// The error is one line saying what is wrong and what is wanted.
func Parse(s string) (Spec, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Spec{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || kerr != nil || nerr != nil {
		return Spec{}, fmt.Errorf("%q is not K/N: want two whole numbers, e.g. 0/8 for the first of 8 shards (K counts from 0, as JOB_COMPLETION_INDEX and strategy.job-index do)", s)
	}
	if n < 1 || n > MaxShards {
		return Spec{}, fmt.Errorf("%q: N must be from 1 to %d", s, MaxShards)
	}
	if k < 0 || k >= n {
		return Spec{}, fmt.Errorf("%q: K must be from 0 to %d for %d shards (K counts from 0, as JOB_COMPLETION_INDEX and strategy.job-index do)", s, n-1, n)
	}
	return Spec{K: k, N: n}, nil
}

// Active reports whether s splits the set (N > 1; 0/1 is the whole set).
func (s Spec) Active() bool { return s.N > 1 }

// String is "K/N", "" for the zero Spec.
func (s Spec) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Has reports whether the unit with key is in shard s (always, for a
// Spec that does not split).
func (s Spec) Has(key string) bool {
	if !s.Active() {
		return true
	}
	return Of(key, s.N) == s.K
}

// Of is the shard, from 0 to n-1, of the unit with key: the first 8
// bytes of SHA-256(key), big-endian, mod n.
func Of(key string, n int) int {
	if n <= 1 {
		return 0
	}
	return int(Hash(key) % uint64(n))
}

// FileKey is the key of a unit that is a file: its name without the
// directory and without a .jsonl or .json extension (a Claude Code
// session's id, a Codex rollout's rollout-<time>-<id>), the same wherever
// the file sits; "-" (standard input) is itself. FileKeys keys a set of
// files, where names may repeat.
func FileKey(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".jsonl", ".json"} {
		if strings.HasSuffix(base, ext) && len(base) > len(ext) {
			return strings.TrimSuffix(base, ext)
		}
	}
	return base
}

// FileKeys keys the files of one run: each file's FileKey, and where two
// different files share it (archives that name every session full.jsonl
// in a folder of its own), the key grows by the parent folders, one at a
// time, until it tells them apart: "fc/99c919b212/0/full". The key never
// holds more of the path than it needs, so it stays the same wherever the
// tree sits, and every job given the same files computes the same keys.
// The same path given twice keeps one key.
func FileKeys(paths []string) []string {
	keys := make([]string, len(paths))
	parts := make([][]string, len(paths))
	depth := make([]int, len(paths))
	for i, p := range paths {
		keys[i] = FileKey(p)
		if p != "-" {
			parts[i] = strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
		}
		depth[i] = 1
	}
	for {
		byKey := map[string][]int{}
		for i, k := range keys {
			byKey[k] = append(byKey[k], i)
		}
		grew := false
		for _, idx := range byKey {
			if len(idx) < 2 || samePath(paths, idx) {
				continue
			}
			for _, i := range idx {
				d := depth[i] + 1
				if d > len(parts[i]) || parts[i][len(parts[i])-d] == "" || parts[i][len(parts[i])-d] == ".." {
					continue
				}
				depth[i] = d
				keys[i] = parts[i][len(parts[i])-d] + "/" + keys[i]
				grew = true
			}
		}
		if !grew {
			return keys
		}
	}
}

// samePath reports whether the paths at idx are all one file's.
func samePath(paths []string, idx []int) bool {
	for _, i := range idx[1:] {
		if filepath.Clean(paths[i]) != filepath.Clean(paths[idx[0]]) {
			return false
		}
	}
	return true
}

// Hash is the first 8 bytes of SHA-256(key), big-endian.
func Hash(key string) uint64 {
	sum := sha256.Sum256([]byte(key))
	return binary.BigEndian.Uint64(sum[:8])
}
