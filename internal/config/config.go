// Package config owns compact's configuration: the embedded defaults
// (configs/compact.yaml), an optional user file, COMPACT_* environment
// variables and command-line flags, in rising order of precedence, and the
// record of where each effective value came from.
package config

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/compactlab/compact/internal/fsutil"
)

// Delim separates nested keys. Not ".", because model ids such as
// claude-sonnet-4.6 are keys of the context window table.
const Delim = "::"

// EnvPrefix is the prefix of environment overrides.
const EnvPrefix = "COMPACT"

// Store is the layered configuration of one invocation.
type Store struct {
	v        *viper.Viper
	file     string
	fileKeys map[string]bool
	envKeys  map[string]string // key -> variable that set it
	flags    map[string]*pflag.Flag
}

// maxConfigBytes bounds a configuration file; the defaults are about 8 KB.
const maxConfigBytes = 16 << 20

// Load reads the embedded defaults and, when path is not empty, the user's
// YAML file on top of them, then the COMPACT_* variables of the process
// environment.
func Load(path string) (*Store, error) { return LoadEnv(path, os.Getenv) }

// LoadEnv is Load with the environment read through getenv (tests).
func LoadEnv(path string, getenv func(string) string) (*Store, error) {
	v := viper.NewWithOptions(viper.KeyDelimiter(Delim))
	v.SetConfigType("yaml")
	// The embedded defaults, decoded once: a copy of them is what
	// v.ReadConfig(configs.Default) would read (TestDefaultsDecodedOnce).
	def, err := defaultTree()
	if err != nil {
		return nil, err
	}
	if err := v.MergeConfigMap(deepCopy(def).(map[string]any)); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	s := &Store{v: v, fileKeys: map[string]bool{}, flags: map[string]*pflag.Flag{}}
	if path != "" {
		data, err := fsutil.ReadFileLimit(path, maxConfigBytes)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("config: %s is not valid YAML: %v", path, err)
		}
		if err := checkFile(path, m); err != nil {
			return nil, err
		}
		flatten("", m, s.fileKeys)
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config: %s: %v", path, err)
		}
		s.file = path
	}
	// Environment variables are a layer above the file: every known key
	// whose COMPACT_* variable is set (a list takes comma-separated
	// values). Flags, bound later, win over both.
	s.envKeys = map[string]string{}
	envLayer := map[string]any{}
	for _, key := range v.AllKeys() {
		name := EnvName(key)
		val := getenv(name)
		if val == "" {
			continue
		}
		s.envKeys[key] = name
		var typed any = val
		if _, isList := v.Get(key).([]any); isList {
			parts := strings.Split(val, ",")
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			typed = parts
		}
		setNested(envLayer, strings.Split(key, Delim), typed)
	}
	if len(envLayer) > 0 {
		if err := v.MergeConfigMap(envLayer); err != nil {
			return nil, fmt.Errorf("config: environment: %w", err)
		}
	}
	// The short names the README tells users to set (COMPACT_OPENAI_BASE_URL
	// rather than COMPACT_PROVIDERS_OPENAI_BASE_URL) are a layer above: the
	// cascade lets them win, so the store does too, and records them as
	// the source.
	aliasLayer := map[string]any{}
	for _, a := range EnvAliases {
		val := strings.TrimSpace(getenv(a.Env))
		if val == "" || !a.applies(v) {
			continue
		}
		s.envKeys[a.Key] = a.Env
		setNested(aliasLayer, strings.Split(a.Key, Delim), val)
	}
	if len(aliasLayer) > 0 {
		if err := v.MergeConfigMap(aliasLayer); err != nil {
			return nil, fmt.Errorf("config: environment: %w", err)
		}
	}
	if err := checkEnv(s, getenv); err != nil {
		return nil, err
	}
	return s, nil
}

// EnvAlias is a documented environment variable that sets a key under a
// name other than EnvName(Key).
type EnvAlias struct {
	Env string // the variable, e.g. COMPACT_OPENAI_BASE_URL
	Key string // the key it sets, e.g. providers::openai::base_url
	// Provider and Kind: the alias applies to providers.<Provider> only
	// while its kind is Kind (or unset), as the cascade applies it.
	Provider, Kind string
}

func (a EnvAlias) applies(v *viper.Viper) bool {
	if a.Provider == "" {
		return true
	}
	kind := v.GetString("providers" + Delim + a.Provider + Delim + "kind")
	return kind == "" || kind == a.Kind
}

// EnvAliases are the short variables of the providers' base URLs
// (internal/cascade reads the same names).
var EnvAliases = []EnvAlias{
	{Env: "COMPACT_GEMINI_BASE_URL", Key: "providers" + Delim + "gemini" + Delim + "base_url", Provider: "gemini", Kind: "gemini"},
	{Env: "COMPACT_OPENAI_BASE_URL", Key: "providers" + Delim + "openai" + Delim + "base_url", Provider: "openai", Kind: "openai"},
	{Env: "COMPACT_ANTHROPIC_BASE_URL", Key: "providers" + Delim + "anthropic" + Delim + "base_url", Provider: "anthropic", Kind: "anthropic"},
}

// EnvNames lists every variable that sets key: its alias, if it has one,
// first (it wins), then EnvName(key).
func EnvNames(key string) []string {
	var out []string
	for _, a := range EnvAliases {
		if a.Key == key {
			out = append(out, a.Env)
		}
	}
	return append(out, EnvName(key))
}

func setNested(m map[string]any, path []string, val any) {
	for _, p := range path[:len(path)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[path[len(path)-1]] = val
}

func flatten(prefix string, m map[string]any, out map[string]bool) {
	for k, val := range m {
		key := strings.ToLower(k)
		if prefix != "" {
			key = prefix + Delim + key
		}
		if sub, ok := val.(map[string]any); ok && len(sub) > 0 {
			flatten(key, sub, out)
			continue
		}
		out[key] = true
	}
}

// EnvName is the environment variable that overrides key.
func EnvName(key string) string {
	r := strings.NewReplacer(Delim, "_", "-", "_", ".", "_")
	return EnvPrefix + "_" + strings.ToUpper(r.Replace(key))
}

// BindFlag makes flag f override key when the user sets it.
func (s *Store) BindFlag(key string, f *pflag.Flag) {
	if f == nil {
		return
	}
	s.flags[key] = f
	_ = s.v.BindPFlag(key, f)
}

// Keys lists every known key, sorted.
func (s *Store) Keys() []string {
	keys := s.v.AllKeys()
	sort.Strings(keys)
	return keys
}

// Source says where the effective value of key comes from: "flag --name",
// "env COMPACT_…", "file PATH" or "default".
func (s *Store) Source(key string) string {
	if f, ok := s.flags[key]; ok && f.Changed {
		return "flag --" + f.Name
	}
	if name, ok := s.envKeys[key]; ok {
		return "env " + name
	}
	if s.fileKeys[key] {
		return "file " + s.file
	}
	return "default"
}

// Get returns the effective value of key.
func (s *Store) Get(key string) any { return s.v.Get(key) }

// String returns key as a string.
func (s *Store) String(key string) string { return s.v.GetString(key) }

// Int returns key as an int.
func (s *Store) Int(key string) int { return s.v.GetInt(key) }

// Float returns key as a float64.
func (s *Store) Float(key string) float64 { return s.v.GetFloat64(key) }

// Duration returns key as a duration.
func (s *Store) Duration(key string) time.Duration { return s.v.GetDuration(key) }

// Strings returns key as a list of strings.
func (s *Store) Strings(key string) []string { return s.v.GetStringSlice(key) }

// IsSet reports whether key has a non-empty value.
func (s *Store) IsSet(key string) bool {
	val := s.v.Get(key)
	if val == nil {
		return false
	}
	if str, ok := val.(string); ok {
		return str != ""
	}
	return true
}

// ContextWindows returns the per-model context window table.
func (s *Store) ContextWindows() map[string]int {
	out := map[string]int{}
	prefix := "context_windows" + Delim
	for _, k := range s.v.AllKeys() {
		if strings.HasPrefix(k, prefix) {
			out[strings.TrimPrefix(k, prefix)] = s.v.GetInt(k)
		}
	}
	return out
}

// deepCopy copies the maps and lists of a decoded YAML value (viper
// changes the maps it is given).
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case map[any]any:
		m := make(map[any]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}
