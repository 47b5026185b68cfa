package respcache

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestPutGetPrune(t *testing.T) {
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	k := Key([]byte("a"), []byte("bc"))
	if k == Key([]byte("ab"), []byte("c")) || k == Key([]byte("abc")) {
		t.Error("keys of different parts collide")
	}
	if _, ok := c.Get(k); ok {
		t.Error("a hit in an empty cache")
	}
	if err := c.Put(k, []byte("answer")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Get(k); !ok || string(got) != "answer" {
		t.Errorf("Get = %q, %v", got, ok)
	}
	for _, bad := range []string{"", "../../etc/passwd", "ABCDEF0123", "zz"} {
		if err := c.Put(bad, []byte("x")); err == nil {
			t.Errorf("Put(%q) accepted", bad)
		}
		if _, ok := c.Get(bad); ok {
			t.Errorf("Get(%q) hit", bad)
		}
	}
	// A killed run's temporary file is not an entry, and prune removes it
	// once it is a minute old.
	tmp := filepath.Join(c.Dir(), k[:2], tmpPrefix+"dead")
	os.WriteFile(tmp, []byte("half"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	st, err := c.Stats()
	if err != nil || st.Entries != 1 || st.Bytes != 6 {
		t.Errorf("stats %+v %v", st, err)
	}
	if n, _, err := c.Prune(time.Now().Add(-time.Minute)); err != nil || n != 0 {
		t.Errorf("prune of recent entries removed %d: %v", n, err)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("the old temporary file is still there")
	}
	if n, b, err := c.Prune(time.Time{}); err != nil || n != 1 || b != 6 {
		t.Errorf("prune all: %d %d %v", n, b, err)
	}
	if _, ok := c.Get(k); ok {
		t.Error("a pruned entry still hits")
	}
}

func TestDefaultDirComesOnlyFromTheEnvironmentGiven(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if d := DefaultDir(env(nil)); d != "" {
		t.Errorf("no environment: %q", d)
	}
	if d := DefaultDir(env(map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"})); d != filepath.Join("/x", "compact", "responses") {
		t.Errorf("XDG: %q", d)
	}
	if d := DefaultDir(env(map[string]string{"XDG_CACHE_HOME": "rel", "HOME": "/h"})); runtime.GOOS == "linux" && d != "/h/.cache/compact/responses" {
		t.Errorf("relative XDG is ignored: %q", d)
	}
}
