package prompt

import (
	"math"
	"testing"
)

func TestFormatInt(t *testing.T) {
	const (
		nbsp  = "\u00a0"
		nnbsp = "\u202f"
		apos  = "'"
	)
	tests := []struct {
		n      int
		locale string
		want   string
	}{
		{30000, "en-US", "30,000"},
		{0, "en-US", "0"},
		{999, "en-US", "999"},
		{1000, "en-US", "1,000"},
		{1234567, "en-US", "1,234,567"},
		{-1234, "en-US", "-1,234"},
		{-5, "en-US", "-5"},
		{math.MaxInt64, "en-US", "9,223,372,036,854,775,807"},
		{math.MinInt64, "en-US", "-9,223,372,036,854,775,808"},
		{30000, "de-DE", "30.000"},
		{17999, "de-DE", "17.999"},
		{123456, "de-DE", "123.456"},
		{-30000, "de-DE", "-30.000"},
		{30000, "de_DE", "30.000"},
		{30000, "DE-de", "30.000"},
		{30000, "de", "30.000"},
		{30000, "de-LU", "30.000"}, // language fallback
		{30000, "de-DE-u-nu-latn", "30.000"},
		{30000, "de-AT", "30" + nbsp + "000"},
		{30000, "de-CH", "30" + apos + "000"},
		{30000, "fr-FR", "30" + nnbsp + "000"},
		{1234, "fr-FR", "1" + nnbsp + "234"},
		{30000, "fr-CA", "30" + nbsp + "000"},
		{30000, "en-IN", "30,000"},
		{123456, "en-IN", "1,23,456"},
		{1234567, "en-IN", "12,34,567"},
		{123456789, "en-IN", "12,34,56,789"},
		{999, "en-IN", "999"},
		{1234, "es-ES", "1234"},
		{12345, "es-ES", "12.345"},
		{1234567, "es-ES", "1.234.567"},
		{999, "es-ES", "999"},
		{-1234, "es-ES", "-1234"},
		{1234, "pl-PL", "1234"},
		{12345, "pl-PL", "12" + nbsp + "345"},
		{30000, "pl-PL", "30" + nbsp + "000"},
		{1234, "pt-PT", "1234"},
		{30000, "it-IT", "30.000"},
		{1234, "it-IT", "1234"},
		{12345, "it-CH", "12" + apos + "345"},
		{1234, "it-CH", "1234"},
		{30000, "pt-BR", "30.000"},
		{30000, "ja-JP", "30,000"},
		{30000, "zh-CN", "30,000"},
		{30000, "zh-Hant-TW", "30,000"},
		{30000, "sv-SE", "30" + nbsp + "000"},
		{-5, "sv-SE", "\u22125"},
		{30000, "ru-RU", "30" + nbsp + "000"},
		{1234, "ru-RU", "1" + nbsp + "234"},
		{30000, "nl-NL", "30.000"},
		{30000, "xx-YY", "30,000"}, // unknown: en-US
		{30000, "", "30,000"},
		{30000, "C", "30,000"},
		{30000, "1234", "30,000"},
		{30000, "en-UK", "30,000"},
	}
	for _, tt := range tests {
		if got := FormatInt(tt.n, tt.locale); got != tt.want {
			t.Errorf("FormatInt(%d, %q) = %q, want %q", tt.n, tt.locale, got, tt.want)
		}
	}
}

func TestLocaleFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string // LocaleFromEnv
		// wantLookup is LocaleFromLookupEnv's answer when it differs.
		wantLookup string
	}{
		{name: "nothing set", env: nil, want: "en-US"},
		{name: "LANG", env: map[string]string{"LANG": "de_DE.UTF-8"}, want: "de-DE"},
		{name: "LANG without codeset", env: map[string]string{"LANG": "fr_FR"}, want: "fr-FR"},
		{name: "LANG language only", env: map[string]string{"LANG": "de"}, want: "de"},
		{name: "LC_ALL wins", env: map[string]string{"LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "sv_SE.UTF-8", "LANG": "de_DE.UTF-8"}, want: "fr-FR"},
		{name: "LC_MESSAGES before LANG", env: map[string]string{"LC_MESSAGES": "sv_SE.UTF-8", "LANG": "de_DE.UTF-8"}, want: "sv-SE"},
		{name: "LC_NUMERIC is ignored", env: map[string]string{"LC_NUMERIC": "de_DE.UTF-8"}, want: "en-US"},
		{name: "LC_NUMERIC is ignored with LANG", env: map[string]string{"LC_NUMERIC": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8"}, want: "fr-FR"},
		{name: "LC_CTYPE is ignored", env: map[string]string{"LC_CTYPE": "de_DE.UTF-8"}, want: "en-US"},
		{name: "C", env: map[string]string{"LANG": "C"}, want: "en-US"},
		{name: "POSIX", env: map[string]string{"LANG": "POSIX"}, want: "en-US"},
		{name: "C.UTF-8", env: map[string]string{"LANG": "C.UTF-8"}, want: "en-US"},
		{name: "LC_ALL=C hides LANG", env: map[string]string{"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, want: "en-US"},
		{name: "modifier", env: map[string]string{"LANG": "de_DE@euro"}, want: "de-DE"},
		{name: "codeset and modifier", env: map[string]string{"LANG": "sr_RS.UTF-8@latin"}, want: "sr-RS"},
		{name: "modifier before codeset", env: map[string]string{"LANG": "ca_ES@valencia.UTF-8"}, want: "ca-ES"},
		{name: "en_IN", env: map[string]string{"LANG": "en_IN.UTF-8"}, want: "en-IN"},
		{name: "en_US_POSIX", env: map[string]string{"LANG": "en_US_POSIX"}, want: "en-US"},
		{name: "lower-case region", env: map[string]string{"LANG": "de_de.utf8"}, want: "de-DE"},
		{name: "script", env: map[string]string{"LANG": "zh_Hant_TW.UTF-8"}, want: "zh-Hant-TW"},
		{name: "garbage", env: map[string]string{"LANG": "12345"}, want: "en-US"},
		{name: "only a codeset", env: map[string]string{"LANG": ".UTF-8"}, want: "en-US"},
		{name: "empty LC_ALL", env: map[string]string{"LC_ALL": "", "LANG": "de_DE.UTF-8"}, want: "de-DE", wantLookup: "en-US"},
		{name: "empty LANG", env: map[string]string{"LANG": ""}, want: "en-US"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := LocaleFromEnv(getenv); got != tt.want {
				t.Errorf("LocaleFromEnv = %q, want %q", got, tt.want)
			}
			want := tt.want
			if tt.wantLookup != "" {
				want = tt.wantLookup
			}
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			if got := LocaleFromLookupEnv(lookup); got != want {
				t.Errorf("LocaleFromLookupEnv = %q, want %q", got, want)
			}
		})
	}
}
