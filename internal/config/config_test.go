package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/spf13/viper"

	"github.com/compactlab/compact/configs"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestEnvLayers: a COMPACT_ variable wins over the file, which wins over the
// defaults, and Source says which one a value came from.
func TestEnvLayers(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("profile: head\ncompression:\n  threshold: 0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := LoadEnv(cfg, envMap(map[string]string{"COMPACT_COMPRESSION_THRESHOLD": "0.4", "COMPACT_CASCADE_MODELS": "a, b"}))
	if err != nil {
		t.Fatal(err)
	}
	key := "compression" + Delim + "threshold"
	if st.Float(key) != 0.4 || st.Source(key) != "env COMPACT_COMPRESSION_THRESHOLD" {
		t.Errorf("threshold %v from %s", st.Float(key), st.Source(key))
	}
	if st.String("profile") != "head" || st.Source("profile") != "file "+cfg {
		t.Errorf("profile %s from %s", st.String("profile"), st.Source("profile"))
	}
	if got := st.Strings("cascade" + Delim + "models"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("cascade.models %v", got)
	}
	if st.Source("locale") != "default" {
		t.Errorf("locale from %s", st.Source("locale"))
	}
}

// TestEnvAliases: COMPACT_OPENAI_BASE_URL (the name the README gives) sets
// providers.openai.base_url, wins over COMPACT_PROVIDERS_OPENAI_BASE_URL as
// in the cascade, and is the source config show reports; it does not
// apply to a provider of that name with another kind.
func TestEnvAliases(t *testing.T) {
	key := "providers" + Delim + "openai" + Delim + "base_url"
	st, err := LoadEnv("", envMap(map[string]string{"COMPACT_OPENAI_BASE_URL": " http://127.0.0.1:8080 "}))
	if err != nil {
		t.Fatal(err)
	}
	if st.String(key) != "http://127.0.0.1:8080" || st.Source(key) != "env COMPACT_OPENAI_BASE_URL" {
		t.Errorf("base_url %q from %s", st.String(key), st.Source(key))
	}
	st, err = LoadEnv("", envMap(map[string]string{
		"COMPACT_OPENAI_BASE_URL":           "http://alias",
		"COMPACT_PROVIDERS_OPENAI_BASE_URL": "http://generic",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if st.String(key) != "http://alias" || st.Source(key) != "env COMPACT_OPENAI_BASE_URL" {
		t.Errorf("both set: base_url %q from %s", st.String(key), st.Source(key))
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("providers:\n  openai:\n    kind: openai-compatible\n    base_url: http://file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = LoadEnv(cfg, envMap(map[string]string{"COMPACT_OPENAI_BASE_URL": "http://alias"}))
	if err != nil {
		t.Fatal(err)
	}
	if st.String(key) != "http://file" || st.Source(key) != "file "+cfg {
		t.Errorf("openai-compatible: base_url %q from %s", st.String(key), st.Source(key))
	}
	if got := EnvNames(key); !slices.Equal(got, []string{"COMPACT_OPENAI_BASE_URL", "COMPACT_PROVIDERS_OPENAI_BASE_URL"}) {
		t.Errorf("EnvNames %v", got)
	}
	if got := EnvNames("profile"); !slices.Equal(got, []string{"COMPACT_PROFILE"}) {
		t.Errorf("EnvNames(profile) %v", got)
	}
}

// TestDefaultsDecodedOnce: the defaults LoadEnv copies from its one
// decoding are what viper reads from the embedded file, key by key and
// type by type; and a file merged over one store's copy does not reach
// the next store.
func TestDefaultsDecodedOnce(t *testing.T) {
	want := viper.NewWithOptions(viper.KeyDelimiter(Delim))
	want.SetConfigType("yaml")
	if err := want.ReadConfig(bytes.NewReader(configs.Default)); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("compression:\n  threshold: 0.3\ncontext_windows:\n  my-model: 1000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadEnv(cfg, envMap(nil)); err != nil {
		t.Fatal(err)
	}
	st, err := LoadEnv("", envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.v.AllSettings(), want.AllSettings()) {
		t.Errorf("settings differ:\n got %v\nwant %v", st.v.AllSettings(), want.AllSettings())
	}
	keys, got := want.AllKeys(), st.v.AllKeys()
	slices.Sort(keys)
	slices.Sort(got)
	if len(keys) < 20 || !slices.Equal(got, keys) {
		t.Fatalf("keys %v, want %v", got, keys)
	}
	for _, k := range keys {
		if got, w := st.v.Get(k), want.Get(k); !reflect.DeepEqual(got, w) || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", w) {
			t.Errorf("%s = %#v, want %#v", k, got, w)
		}
	}
}
