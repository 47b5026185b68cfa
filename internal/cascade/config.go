package cascade

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/compactlab/compact/internal/config"
	"github.com/compactlab/compact/internal/upstream"
)

// ProviderConfig is one entry of providers: with its key resolved. Its
// String and GoString forms leave the key out; so does its JSON.
type ProviderConfig struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// BaseURL is the server root (http://127.0.0.1:8080); the client adds
	// the provider's path (/v1beta/models/…, /v1/chat/completions,
	// /v1/messages).
	BaseURL string `json:"baseUrl"`
	APIKey  string `json:"-"`
	// KeySource says where APIKey came from ("env OPENAI_API_KEY",
	// "file providers.openai.api_key") or, when it is empty, where it was
	// looked for ("missing: OPENAI_API_KEY, providers.openai.api_key").
	KeySource string `json:"keySource"`
	// KeyEnvs are the environment variables the key was looked for in,
	// first to last (names only).
	KeyEnvs []string `json:"-"`
	// RPM limits requests per minute to this provider across goroutines;
	// 0: no limit.
	RPM int `json:"rpm"`
	// MaxTokensField is the request field that carries the output limit on
	// an openai-compatible server: max_tokens (default) or
	// max_completion_tokens. The openai kind always sends
	// max_completion_tokens.
	MaxTokensField string `json:"maxTokensField,omitempty"`
	// KeyRequired: an openai-compatible provider that is a hosted API
	// (DeepSeek's) rather than a local server: without its key its models
	// are left out of the cascade, as the public APIs' are, and it is not
	// given a local server's allowances (5-minute timeout).
	KeyRequired bool `json:"keyRequired,omitempty"`
	// TargetChars is the briefing size the builtin writer aims at.
	TargetChars int `json:"targetChars,omitempty"`
	// HTTPClient is the base client; nil: a client with its own transport.
	HTTPClient *http.Client `json:"-"`
}

func (p ProviderConfig) String() string {
	key := "none"
	if p.APIKey != "" {
		key = Redacted
	}
	return fmt.Sprintf("{%s %s %s key=%s (%s) rpm=%d}", p.Name, p.Kind, p.BaseURL, key, p.KeySource, p.RPM)
}

// GoString keeps %#v from printing the key.
func (p ProviderConfig) GoString() string { return "cascade.ProviderConfig" + p.String() }

// Default server roots.
const (
	DefaultGeminiBaseURL    = "https://generativelanguage.googleapis.com"
	DefaultOpenAIBaseURL    = "https://api.openai.com"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

var kindDefaults = map[string]struct {
	baseURL string
	keyEnvs []string
	urlEnv  string
}{
	// GOOGLE_API_KEY first, as genai itself does (and says in the warning
	// it logs when both are set).
	KindGemini:    {DefaultGeminiBaseURL, []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}, "COMPACT_GEMINI_BASE_URL"},
	KindOpenAI:    {DefaultOpenAIBaseURL, []string{"OPENAI_API_KEY"}, "COMPACT_OPENAI_BASE_URL"},
	KindAnthropic: {DefaultAnthropicBaseURL, []string{"ANTHROPIC_API_KEY"}, "COMPACT_ANTHROPIC_BASE_URL"},
}

var providerKeys = map[string]bool{
	"kind": true, "base_url": true, "api_key_env": true, "api_key": true, "rpm": true, "max_tokens_field": true, "key_required": true,
}

// LoadProviders reads the providers: section of st. getenv supplies the
// environment (os.Getenv in the program, a map in tests).
//
// Base URL: COMPACT_GEMINI_BASE_URL, COMPACT_OPENAI_BASE_URL or
// COMPACT_ANTHROPIC_BASE_URL for the provider of that name, else
// providers.<name>.base_url, else the public endpoint (required for
// openai-compatible). Key: the variable named by providers.<name>.api_key_env,
// else the kind's usual variables (GOOGLE_API_KEY then GEMINI_API_KEY,
// OPENAI_API_KEY, ANTHROPIC_API_KEY), else providers.<name>.api_key.
func LoadProviders(st *config.Store, getenv func(string) string) ([]ProviderConfig, error) {
	raw := st.Get("providers")
	if raw == nil {
		return nil, fmt.Errorf("providers: section missing")
	}
	section, ok := toStringMap(raw)
	if !ok {
		return nil, fmt.Errorf("providers: want a mapping of provider names, got %T", raw)
	}
	names := make([]string, 0, len(section))
	for n := range section {
		names = append(names, n)
	}
	sort.Strings(names)
	targetChars := st.Int("compression" + config.Delim + "target_chars")
	var out []ProviderConfig
	for _, name := range names {
		entry, ok := toStringMap(section[name])
		if !ok && section[name] != nil {
			return nil, fmt.Errorf("providers.%s: want a mapping (kind, base_url, api_key_env, rpm), got %T", name, section[name])
		}
		var unknown []string
		for k := range entry {
			if !providerKeys[k] {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return nil, fmt.Errorf("providers.%s: unknown key %s (known: kind, base_url, api_key_env, api_key, rpm, max_tokens_field, key_required)", name, strings.Join(unknown, ", "))
		}
		key := func(k string) string { return "providers" + config.Delim + name + config.Delim + k }
		pc := ProviderConfig{
			Name:           name,
			Kind:           st.String(key("kind")),
			BaseURL:        st.String(key("base_url")),
			RPM:            st.Int(key("rpm")),
			MaxTokensField: st.String(key("max_tokens_field")),
		}
		if v := st.Get(key("key_required")); v != nil {
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("providers.%s: key_required must be true or false, got %v", name, v)
			}
			pc.KeyRequired = b
		}
		if pc.Kind == "" {
			switch name {
			case KindGemini, KindOpenAI, KindAnthropic, KindBuiltin:
				pc.Kind = name
			default:
				return nil, fmt.Errorf("providers.%s: kind is missing (gemini, openai, openai-compatible, anthropic or builtin)", name)
			}
		}
		if pc.Kind == KindBuiltin {
			pc.TargetChars = targetChars
		}
		keyEnv := st.String(key("api_key_env"))
		fileKey := st.String(key("api_key"))
		if err := resolve(&pc, keyEnv, fileKey, getenv); err != nil {
			return nil, err
		}
		out = append(out, pc)
	}
	return out, nil
}

// resolve fills in the defaults, the environment overrides and the key of
// pc, and checks it.
func resolve(pc *ProviderConfig, keyEnv, fileKey string, getenv func(string) string) error {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch pc.Kind {
	case KindGemini, KindOpenAI, KindAnthropic, KindOpenAICompatible, KindBuiltin:
	default:
		return fmt.Errorf("providers.%s: unknown kind %q (gemini, openai, openai-compatible, anthropic or builtin)", pc.Name, pc.Kind)
	}
	if pc.RPM < 0 {
		return fmt.Errorf("providers.%s: rpm must be ≥ 0, got %d", pc.Name, pc.RPM)
	}
	if pc.Kind == KindBuiltin {
		return nil
	}
	d := kindDefaults[pc.Kind]
	if d.urlEnv != "" && pc.Name == pc.Kind {
		if v := strings.TrimSpace(getenv(d.urlEnv)); v != "" {
			pc.BaseURL = v
		}
	}
	if pc.BaseURL == "" {
		if d.baseURL == "" {
			return fmt.Errorf("providers.%s: base_url is required for kind %s", pc.Name, pc.Kind)
		}
		pc.BaseURL = d.baseURL
	}
	u, err := url.Parse(pc.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil {
		// Shown without its credentials: user:pass@ is redacted, and so is
		// a key anywhere in it.
		return fmt.Errorf("providers.%s: base_url %q is not an http(s) server root such as http://127.0.0.1:8080 (without user, password or query)", pc.Name, shownURL(pc.BaseURL, fileKey))
	}
	if pc.KeyRequired && pc.Kind != KindOpenAICompatible {
		return fmt.Errorf("providers.%s: key_required applies to kind openai-compatible only (the other kinds always need their key)", pc.Name)
	}
	switch pc.MaxTokensField {
	case "":
		if pc.Kind == KindOpenAICompatible {
			pc.MaxTokensField = "max_tokens"
		}
	case "max_tokens", "max_completion_tokens":
		if pc.Kind != KindOpenAICompatible {
			return fmt.Errorf("providers.%s: max_tokens_field applies to kind openai-compatible only", pc.Name)
		}
	default:
		return fmt.Errorf("providers.%s: max_tokens_field must be max_tokens or max_completion_tokens, got %q", pc.Name, pc.MaxTokensField)
	}
	envs := d.keyEnvs
	if keyEnv != "" {
		envs = []string{keyEnv}
	}
	pc.KeyEnvs = append([]string(nil), envs...)
	if pc.APIKey == "" {
		for _, e := range envs {
			if v := strings.TrimSpace(getenv(e)); v != "" {
				pc.APIKey, pc.KeySource = v, "env "+e
				break
			}
		}
	}
	if pc.APIKey == "" && fileKey != "" {
		pc.APIKey, pc.KeySource = fileKey, "file providers."+pc.Name+".api_key"
	}
	if pc.APIKey == "" && pc.KeySource == "" {
		where := append(append([]string{}, envs...), "providers."+pc.Name+".api_key")
		pc.KeySource = "missing: " + strings.Join(where, ", ")
	}
	return nil
}

// shownURL is raw as an error may show it: without user information,
// query and fragment (a key may hide there), and without key.
func shownURL(raw, key string) string {
	s := Redact(raw, key)
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i+1] + Redacted
	}
	return s
}

// NeedsKey reports whether the provider cannot be used without an API key
// and has none: the public APIs do, and openai-compatible providers marked
// key_required; other openai-compatible servers and the builtin model do
// not.
func (p ProviderConfig) NeedsKey() bool {
	switch p.Kind {
	case KindGemini, KindOpenAI, KindAnthropic:
		return p.APIKey == ""
	case KindOpenAICompatible:
		return p.KeyRequired && p.APIKey == ""
	}
	return false
}

// ServerName is the provider name of an OpenAI-compatible server given on
// the command line (compact replay --base-url), as replay.json records it.
const ServerName = KindOpenAICompatible

// ServerKeyEnv is the variable holding the optional key of a server given
// on the command line. It is deliberately not OPENAI_API_KEY: an OpenAI key
// is never sent to some other server.
const ServerKeyEnv = "COMPACT_API_KEY"

// ServerConfig is the provider of an OpenAI-compatible server given by its
// URL alone (vLLM, llama.cpp, Ollama, LM Studio, OpenRouter): the server
// root, with or without /v1. Its key, optional, comes from ServerKeyEnv.
func ServerConfig(baseURL string, getenv func(string) string) (ProviderConfig, error) {
	pc := ProviderConfig{Name: ServerName, Kind: KindOpenAICompatible, BaseURL: strings.TrimSpace(baseURL)}
	u, err := url.Parse(pc.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
		// Shown without user, query and fragment: a key may hide there.
		shown := "the value"
		if err == nil {
			v := *u
			v.User, v.RawQuery, v.ForceQuery, v.Fragment = nil, "", false, ""
			shown = strconv.Quote(v.String())
		}
		return pc, fmt.Errorf("%s is not an http(s) server URL such as http://127.0.0.1:8080/v1 (without user, query or fragment)", shown)
	}
	if err := resolve(&pc, ServerKeyEnv, "", getenv); err != nil {
		return pc, err
	}
	if pc.APIKey == "" {
		pc.KeySource = ServerKeyEnv + " not set"
	}
	return pc, nil
}

// Settings are the cascade's parameters (configs/compact.yaml, cascade:).
type Settings struct {
	// Models is the default order, tried first to last.
	Models []string
	// Timeout is each attempt's budget, retries included.
	Timeout         time.Duration
	Temperature     float64
	MaxOutputTokens int
	// MinOutputChars: a trimmed answer shorter than this, in UTF-16 units,
	// is "too short".
	MinOutputChars int
	// MaxAnswerBytes caps the answer kept, in bytes of UTF-8: a longer
	// trimmed answer is cut at a character boundary and the attempt says
	// so (Attempt.OutputTruncated). A response body longer than
	// 4·MaxAnswerBytes + 1 MiB is not read to its end: the call fails.
	// 0 means DefaultMaxAnswerBytes.
	MaxAnswerBytes int
	Retry          Retry
	// AbortGrace: when an attempt's time runs out, the request is aborted
	// and given this long to settle; an answer that arrives within it is
	// used, an error goes on to the next model, and a request that has
	// not settled by then stops the whole cascade (the agent-core
	// releases' HISTORY_COMPRESSION_ABORT_GRACE_MS). 0: the next model is
	// tried as soon as the request gives up (e3e).
	AbortGrace time.Duration
}

// DefaultMaxAnswerBytes is cascade.max_answer_bytes's default: 4 MiB.
const DefaultMaxAnswerBytes = 4 << 20

func (s Settings) maxAnswerBytes() int {
	if s.MaxAnswerBytes > 0 {
		return s.MaxAnswerBytes
	}
	return DefaultMaxAnswerBytes
}

// Retry bounds the retries of transient faults within one attempt.
type Retry struct {
	// MaxTries counts the first try; 1: no retries.
	MaxTries int
	// The n-th retry waits a random time in [d/2, d], d = min(MaxDelay,
	// BaseDelay·2^(n-1)), unless the server said how long (Retry-After).
	BaseDelay time.Duration
	MaxDelay  time.Duration
}

// DefaultSettings are upstream's (e3e) values.
func DefaultSettings() Settings {
	return SettingsOf(upstream.Catalogs[upstream.GenE3E])
}

// SettingsOf are upstream's values with the cascade and abort grace of
// catalogue cat.
func SettingsOf(cat upstream.Catalog) Settings {
	return Settings{
		Models:          slices.Clone(cat.Cascade),
		AbortGrace:      cat.AbortGrace,
		Timeout:         30 * time.Second,
		Temperature:     0.1,
		MaxOutputTokens: 20000,
		MinOutputChars:  30,
		MaxAnswerBytes:  DefaultMaxAnswerBytes,
		Retry:           Retry{MaxTries: 4, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second},
	}
}

// LoadSettings reads the cascade: section of st for the configured
// profile; see LoadSettingsFor.
func LoadSettings(st *config.Store) (Settings, error) {
	return LoadSettingsFor(st, st.String("profile"))
}

// LoadSettingsFor reads the cascade: section of st. The models and the
// abort grace are the profile's (its generation's catalogue in
// internal/upstream) unless the configuration sets them; other absent keys
// keep the defaults.
func LoadSettingsFor(st *config.Store, profile string) (Settings, error) {
	if profile == "" {
		profile = upstream.Default
	}
	cat, err := upstream.CatalogOf(profile)
	if err != nil {
		return Settings{}, fmt.Errorf("profile: %w", err)
	}
	s := SettingsOf(cat)
	key := func(k string) string { return "cascade" + config.Delim + k }
	if st.IsSet(key("models")) && st.Source(key("models")) != "default" {
		s.Models = st.Strings(key("models"))
	}
	if st.IsSet(key("abort_grace")) {
		s.AbortGrace = st.Duration(key("abort_grace"))
	}
	if st.IsSet(key("timeout")) {
		s.Timeout = st.Duration(key("timeout"))
	}
	if st.IsSet(key("temperature")) {
		s.Temperature = st.Float(key("temperature"))
	}
	if st.IsSet(key("max_output_tokens")) {
		s.MaxOutputTokens = st.Int(key("max_output_tokens"))
	}
	if st.IsSet(key("min_output_chars")) {
		s.MinOutputChars = st.Int(key("min_output_chars"))
	}
	if st.IsSet(key("max_answer_bytes")) {
		s.MaxAnswerBytes = st.Int(key("max_answer_bytes"))
		if s.MaxAnswerBytes <= 0 {
			return s, fmt.Errorf("cascade.max_answer_bytes must be > 0, got %v", st.Get(key("max_answer_bytes")))
		}
	}
	if st.IsSet(key("max_tries")) {
		s.Retry.MaxTries = st.Int(key("max_tries"))
	}
	if st.IsSet(key("backoff_base")) {
		s.Retry.BaseDelay = st.Duration(key("backoff_base"))
	}
	if st.IsSet(key("backoff_max")) {
		s.Retry.MaxDelay = st.Duration(key("backoff_max"))
	}
	return s, s.Validate()
}

// Validate checks s.
func (s Settings) Validate() error {
	switch {
	case len(s.Models) == 0:
		return fmt.Errorf("cascade.models: the list is empty")
	case s.Timeout <= 0:
		return fmt.Errorf("cascade.timeout must be > 0, got %v", s.Timeout)
	case s.Temperature < 0 || s.Temperature > 2:
		return fmt.Errorf("cascade.temperature must be in [0, 2], got %v", s.Temperature)
	case s.MaxOutputTokens <= 0:
		return fmt.Errorf("cascade.max_output_tokens must be > 0, got %d", s.MaxOutputTokens)
	case s.MinOutputChars < 0:
		return fmt.Errorf("cascade.min_output_chars must be ≥ 0, got %d", s.MinOutputChars)
	case s.MaxAnswerBytes < 0:
		return fmt.Errorf("cascade.max_answer_bytes must be > 0, got %d", s.MaxAnswerBytes)
	case s.Retry.MaxTries < 1:
		return fmt.Errorf("cascade.max_tries must be ≥ 1, got %d", s.Retry.MaxTries)
	case s.Retry.BaseDelay < 0 || s.Retry.MaxDelay < 0:
		return fmt.Errorf("cascade.backoff_base and backoff_max must be ≥ 0")
	case s.AbortGrace < 0:
		return fmt.Errorf("cascade.abort_grace must be ≥ 0, got %v", s.AbortGrace)
	}
	return nil
}
