package prompt

import (
	"strconv"
	"strings"
)

// DefaultLocale is the locale used when none is known.
const DefaultLocale = "en-US"

// numberFormat is the part of a CLDR decimal format that matters for
// integers as Intl.NumberFormat prints them by default (useGrouping "auto").
type numberFormat struct {
	group       string // grouping separator
	primary     int    // size of the rightmost group
	secondary   int    // size of the other groups
	minGrouping int    // CLDR minimumGroupingDigits
	minus       string // minus sign
}

var (
	fmtComma  = numberFormat{",", 3, 3, 1, "-"}
	fmtDot    = numberFormat{".", 3, 3, 1, "-"}
	fmtNBSP   = numberFormat{"\u00a0", 3, 3, 1, "-"}
	fmtApos   = numberFormat{"'", 3, 3, 1, "-"}
	fmtApos2  = numberFormat{"'", 3, 3, 2, "-"}
	fmtNNBSP  = numberFormat{"\u202f", 3, 3, 1, "-"}
	fmtLakh   = numberFormat{",", 3, 2, 1, "-"}
	fmtDot2   = numberFormat{".", 3, 3, 2, "-"}
	fmtNBSP2  = numberFormat{"\u00a0", 3, 3, 2, "-"}
	fmtNBSPMi = numberFormat{"\u00a0", 3, 3, 1, "\u2212"}
)

// numberFormats maps locales to what Node 20.20.2 with full ICU (ICU 78.2,
// CLDR 48) prints for (n).toLocaleString(locale); every entry was checked
// against that Node. Keys are "ll" or "ll-RR". A locale
// not listed falls back to its language, then to en-US.
var numberFormats = map[string]numberFormat{
	"en":    fmtComma,
	"en-US": fmtComma,
	"en-GB": fmtComma,
	"en-IN": fmtLakh, // 1,23,456
	"de":    fmtDot,  // 30.000
	"de-DE": fmtDot,
	"de-AT": fmtNBSP, // 30 000 (U+00A0)
	"de-CH": fmtApos, // 30'000: U+0027 in CLDR 48 (older CLDR had U+2019)
	"de-LI": fmtApos,
	"fr":    fmtNNBSP, // 30 000 (U+202F)
	"fr-FR": fmtNNBSP,
	"fr-CA": fmtNBSP, // 30 000 (U+00A0)
	"es":    fmtDot2, // 1234, 12.345
	"es-ES": fmtDot2,
	"es-MX": fmtComma, // Latin American Spanish groups with ","
	"es-US": fmtComma,
	"pl":    fmtNBSP2, // 1234, 12 345 (U+00A0)
	"pl-PL": fmtNBSP2,
	"it":    fmtDot2, // 1234, 12.345
	"it-IT": fmtDot2,
	"it-CH": fmtApos2, // 1234, 12'345
	"pt":    fmtDot,   // 30.000
	"pt-BR": fmtDot,
	"pt-PT": fmtNBSP2, // 1234, 12 345 (U+00A0)
	"nl":    fmtDot,   // 30.000
	"nl-NL": fmtDot,
	"ja":    fmtComma, // 30,000
	"ja-JP": fmtComma,
	"zh":    fmtComma, // 30,000
	"zh-CN": fmtComma,
	"zh-TW": fmtComma,
	"ko":    fmtComma,
	"ko-KR": fmtComma,
	"sv":    fmtNBSPMi, // 30 000, −5 (U+00A0, U+2212)
	"sv-SE": fmtNBSPMi,
	"nb":    fmtNBSPMi,
	"nb-NO": fmtNBSPMi,
	"fi":    fmtNBSPMi,
	"fi-FI": fmtNBSPMi,
	"ru":    fmtNBSP, // 30 000 (U+00A0)
	"ru-RU": fmtNBSP,
	"uk":    fmtNBSP,
	"uk-UA": fmtNBSP,
	"cs":    fmtNBSP,
	"cs-CZ": fmtNBSP,
	"da":    fmtDot,
	"da-DK": fmtDot,
	"tr":    fmtDot,
	"tr-TR": fmtDot,
}

// FormatInt formats n the way Node (full ICU) prints n.toLocaleString() when
// the locale is locale: en-US "30,000", de-DE "30.000", fr-FR "30 000" with
// U+202F, de-CH "30'000" (U+0027), en-IN "1,23,456", es-ES "1234" but "12.345"
// (minimum grouping digits 2), and so on for the locales of a small table.
// locale is a BCP 47 tag ("de-DE"; "de_DE", case and a "-u-…" extension are
// tolerated). A locale missing from the table falls back to its language and
// then to en-US.
func FormatInt(n int, locale string) string {
	f := lookupNumberFormat(locale)
	var abs uint64
	neg := n < 0
	if neg {
		abs = uint64(-(n + 1)) + 1 // no overflow for math.MinInt
	} else {
		abs = uint64(n)
	}
	digits := strconv.FormatUint(abs, 10)
	out := groupDigits(digits, f)
	if neg {
		return f.minus + out
	}
	return out
}

func groupDigits(d string, f numberFormat) string {
	if f.primary <= 0 || len(d)-f.primary < f.minGrouping || len(d) <= f.primary {
		return d
	}
	// Cut from the right: one primary group, then secondary groups.
	var parts []string
	rest := d
	size := f.primary
	for len(rest) > size {
		parts = append(parts, rest[len(rest)-size:])
		rest = rest[:len(rest)-size]
		size = f.secondary
	}
	parts = append(parts, rest)
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
		if i > 0 {
			b.WriteString(f.group)
		}
	}
	return b.String()
}

func lookupNumberFormat(locale string) numberFormat {
	lang, _, region := splitLocale(locale) // the script never matters here
	if lang == "" {
		return numberFormats[DefaultLocale]
	}
	if region != "" {
		if f, ok := numberFormats[lang+"-"+region]; ok {
			return f
		}
	}
	if f, ok := numberFormats[lang]; ok {
		return f
	}
	return numberFormats[DefaultLocale]
}

// splitLocale reads "ll[-Ssss][-RR]…" (with "-" or "_") into canonical-case
// parts; it stops at the first subtag that is none of those and returns
// empty strings when the language subtag is not 2–3 (or 5–8) letters.
func splitLocale(tag string) (lang, script, region string) {
	tag = strings.ReplaceAll(tag, "_", "-")
	if i := strings.Index(strings.ToLower(tag), "-u-"); i >= 0 {
		tag = tag[:i]
	}
	subs := strings.Split(tag, "-")
	if len(subs) == 0 || !isAlpha(subs[0]) || len(subs[0]) < 2 || len(subs[0]) > 8 || len(subs[0]) == 4 {
		return "", "", ""
	}
	lang = strings.ToLower(subs[0])
	i := 1
	if i < len(subs) && len(subs[i]) == 4 && isAlpha(subs[i]) {
		s := strings.ToLower(subs[i])
		script = strings.ToUpper(s[:1]) + s[1:]
		i++
	}
	if i < len(subs) {
		s := subs[i]
		if (len(s) == 2 && isAlpha(s)) || (len(s) == 3 && isDigits(s)) {
			region = strings.ToUpper(s)
		}
	}
	return lang, script, region
}

func isAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// localeEnvVars is the order in which ICU reads the environment for the
// default locale on POSIX systems.
var localeEnvVars = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

// LocaleFromLookupEnv returns the BCP 47 tag of the default locale that Node
// (V8 on ICU) would use, given the process environment through lookup (for
// example os.LookupEnv).
//
// What ICU really does (icu4c/source/common/putil.cpp,
// uprv_getPOSIXIDForDefaultLocale → uprv_getPOSIXIDForCategory(LC_MESSAGES),
// then uprv_getDefaultLocaleID):
//
//  1. It asks setlocale(LC_MESSAGES, NULL). Node does not call
//     setlocale(LC_ALL, "") at start-up (there is none in src/node.cc), so
//     this answers "C" and ICU turns to the environment. (Had it been
//     called, glibc would resolve LC_MESSAGES from the same three variables
//     in the same order, ignoring empty ones.)
//  2. It reads LC_ALL; if that variable is not set, LC_MESSAGES; if that is
//     not set either, LANG. On Linux the test is "not set", not "empty": a
//     variable set to "" stops the search. LC_NUMERIC, LC_CTYPE and the other
//     categories are never read, so the often-quoted "LC_ALL, LC_NUMERIC,
//     LANG" order is not what happens: LC_NUMERIC=de_DE alone changes
//     nothing.
//  3. No value, "C" or "POSIX" give en_US_POSIX, which V8 reports as
//     "en-US". Otherwise the codeset (".UTF-8") and the modifier ("@euro")
//     are cut off; a base of "C" or "POSIX" (as in "C.UTF-8") is en_US_POSIX
//     again.
//
// An empty value (a variable set to "") leaves ICU with the root locale,
// which V8 calls "und" and which groups like en-US; it is returned as
// "en-US". A value that is not a locale name is likewise "en-US". The
// modifier is dropped, where Node keeps it as a variant ("de_DE@euro" is
// "de-DE-x-lvariant-euro" there); that never changes integer formatting for
// the locales FormatInt knows. All of this was checked against Node 20.20.2
// run with env -i and each variable combination of the tests.
func LocaleFromLookupEnv(lookup func(string) (string, bool)) string {
	for _, k := range localeEnvVars {
		if v, ok := lookup(k); ok {
			return posixLocaleToBCP47(v)
		}
	}
	return DefaultLocale
}

// LocaleFromEnv is LocaleFromLookupEnv for a getenv-style function, which
// cannot tell an empty variable from an unset one: empty counts as unset (the
// POSIX rule, which glibc and ICU on Solaris follow). It differs from Node on
// Linux only when a variable is set to "" while a later one is not, e.g.
// LC_ALL="" LANG=de_DE.UTF-8: Node formats like en-US, this returns "de-DE".
// Use LocaleFromLookupEnv(os.LookupEnv) to follow Node there too.
func LocaleFromEnv(getenv func(string) string) string {
	return LocaleFromLookupEnv(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
}

// posixLocaleToBCP47 turns a POSIX locale name (ll_CC.codeset@modifier) into
// a BCP 47 tag: "de_DE.UTF-8" → "de-DE", "C"/"POSIX"/"C.UTF-8"/"" → "en-US".
func posixLocaleToBCP47(v string) string {
	base := v
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	if i := strings.IndexByte(base, '@'); i >= 0 {
		base = base[:i]
	}
	if base == "" || base == "C" || base == "POSIX" {
		return DefaultLocale
	}
	lang, script, region := splitLocale(base)
	if lang == "" {
		return DefaultLocale
	}
	tag := lang
	if script != "" {
		tag += "-" + script
	}
	if region != "" {
		tag += "-" + region
	}
	return tag
}
