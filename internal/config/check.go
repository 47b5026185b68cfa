package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/compactlab/compact/configs"
)

// openSections hold entries named by the user (a provider, a model id):
// any name is allowed there, one level down; a provider's entry has the
// fields of providerFields, a context window is a number of tokens.
var openSections = map[string]bool{"providers": true, "context_windows": true}

// providerFields are the settings of one providers.<name> entry.
var providerFields = map[string]any{"kind": "", "base_url": "", "api_key_env": "", "api_key": "", "max_tokens_field": "", "rpm": 0}

// defaultTree is the embedded defaults as YAML decodes them, decoded once
// (every command loads the configuration; a test process runs thousands):
// checkFile and checkEnv only read it.
var defaultTree = sync.OnceValues(func() (map[string]any, error) {
	var def map[string]any
	if err := yaml.Unmarshal(configs.Default, &def); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	return def, nil
})

// checkFile compares the user's file with the defaults, key by key: a
// setting the defaults do not know (a typo such as compresion, which
// would otherwise be ignored without a word), a section given a value or
// a value given a section, and a value of the wrong type (a duration that
// is not one, a word where a number goes) are errors naming the key.
func checkFile(path string, user map[string]any) error {
	def, err := defaultTree()
	if err != nil {
		return err
	}
	if err := checkMap("", user, def); err != nil {
		return fmt.Errorf("config: %s: %v", path, err)
	}
	return nil
}

func checkMap(prefix string, user, def map[string]any) error {
	keys := make([]string, 0, len(user))
	for k := range user {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		want, known := def[strings.ToLower(k)]
		if !known {
			return fmt.Errorf("%s is not a setting%s", name, suggest(prefix, k, def))
		}
		if err := checkValue(name, user[k], want); err != nil {
			return err
		}
	}
	return nil
}

func checkValue(name string, got, want any) error {
	if got == nil || want == nil {
		return nil // empty in the file, or a setting with no default type
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is a section (%s), not a single value", name, sectionKeys(name, w))
		}
		if openSections[name] {
			// each entry is checked against its kind's fields
			for k, v := range g {
				var entry any = 0 // context_windows.<model>: tokens
				if name == "providers" {
					entry = providerFields
				}
				if err := checkValue(name+"."+k, v, entry); err != nil {
					return err
				}
			}
			return nil
		}
		return checkMap(name, g, w)
	case []any:
		if _, ok := got.([]any); !ok {
			return fmt.Errorf("%s is a list, not %s", name, describe(got))
		}
		return nil
	}
	if _, ok := got.(map[string]any); ok {
		return fmt.Errorf("%s is a single value, not a section", name)
	}
	if _, ok := got.([]any); ok {
		return fmt.Errorf("%s is a single value, not a list", name)
	}
	return checkScalar(name, got, want)
}

// checkScalar checks a value from the file or the environment (where
// every value is a string) against the type of the default.
func checkScalar(name string, got, want any) error {
	s := fmt.Sprint(got)
	switch w := want.(type) {
	case int:
		if _, ok := got.(int); ok {
			return nil
		}
		if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
			return fmt.Errorf("%s: %q is not a whole number", name, s)
		}
	case float64:
		switch got.(type) {
		case int, float64:
			return nil
		}
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
			return fmt.Errorf("%s: %q is not a number", name, s)
		}
	case bool:
		if _, ok := got.(bool); ok {
			return nil
		}
		if _, err := strconv.ParseBool(strings.TrimSpace(s)); err != nil {
			return fmt.Errorf("%s: %q is not true or false", name, s)
		}
	case string:
		if isDuration(w) {
			if _, err := time.ParseDuration(strings.TrimSpace(s)); err != nil {
				return fmt.Errorf("%s: %q is not a duration (like %s)", name, s, w)
			}
		}
	}
	return nil
}

// isDuration tells a default that is a duration ("30s", "500ms").
func isDuration(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	_, err := time.ParseDuration(s)
	return err == nil
}

func sectionKeys(name string, m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, name+"."+k)
	}
	sort.Strings(keys)
	if len(keys) > 3 {
		keys = append(keys[:3], "…")
	}
	return strings.Join(keys, ", ")
}

func describe(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a section"
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

// checkEnv checks the COMPACT_* variables the way checkFile checks the
// file: each against the type of its key's default.
func checkEnv(s *Store, getenv func(string) string) error {
	def, err := defaultTree()
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(s.envKeys))
	for k := range s.envKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		want := lookup(def, strings.Split(key, Delim))
		if want == nil {
			continue
		}
		if _, isList := want.([]any); isList {
			continue
		}
		name := s.envKeys[key]
		if err := checkScalar(name, getenv(name), want); err != nil {
			return fmt.Errorf("config: environment: %v", err)
		}
	}
	return nil
}

func lookup(m map[string]any, path []string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// suggest names the setting a typo most likely meant, or the settings of
// the section when there are few.
func suggest(prefix, k string, def map[string]any) string {
	full := func(n string) string {
		if prefix == "" {
			return n
		}
		return prefix + "." + n
	}
	best, bestD := "", 3
	names := make([]string, 0, len(def))
	for n := range def {
		names = append(names, n)
		if d := Distance(strings.ToLower(k), n); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= 2 {
		return fmt.Sprintf(" (did you mean %s?)", full(best))
	}
	sort.Strings(names)
	if len(names) <= 8 {
		for i := range names {
			names[i] = full(names[i])
		}
		return " (known: " + strings.Join(names, ", ") + ")"
	}
	return " (the settings are listed in configs/compact.yaml of compact's source and by compact config show without this file)"
}

// Distance is the Levenshtein distance of two short ASCII names (keys,
// flags), for "did you mean" suggestions.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// JoinOr lists items as a sentence does: "a", "a or b", "a, b or c" (with
// word "and": "a, b and c"), for suggestions and the names of what is
// missing.
func JoinOr(items []string, word string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}
