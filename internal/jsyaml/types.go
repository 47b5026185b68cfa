package jsyaml

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// yamlType is one type of the DEFAULT_SAFE_SCHEMA.
type yamlType struct {
	kind string // scalar, sequence, mapping
	// resolveConstruct is resolve then construct: ok false when resolve
	// rejects the data (nil is JavaScript's null).
	resolveConstruct func(data *Value) (*Value, bool)
}

const tagPrefix = "tag:yaml.org,2002:"

var typeMap = map[string]yamlType{
	tagPrefix + "str": {"scalar", func(d *Value) (*Value, bool) {
		if d == nil {
			return &Value{Kind: String}, true
		}
		return d, true
	}},
	tagPrefix + "null":      {"scalar", resolveNull},
	tagPrefix + "bool":      {"scalar", resolveBool},
	tagPrefix + "int":       {"scalar", resolveInt},
	tagPrefix + "float":     {"scalar", resolveFloat},
	tagPrefix + "timestamp": {"scalar", resolveTimestamp},
	tagPrefix + "merge":     {"scalar", resolveMerge},
	tagPrefix + "binary":    {"scalar", resolveBinary},
	tagPrefix + "seq": {"sequence", func(d *Value) (*Value, bool) {
		if d == nil {
			return &Value{Kind: Seq}, true
		}
		return d, true
	}},
	tagPrefix + "omap":  {"sequence", resolveOmap},
	tagPrefix + "pairs": {"sequence", resolvePairs},
	tagPrefix + "map": {"mapping", func(d *Value) (*Value, bool) {
		if d == nil {
			return newObject(), true
		}
		return d, true
	}},
	tagPrefix + "set": {"mapping", resolveSet},
}

// lookupType is state.typeMap[kind][tag].
func lookupType(kind, tag string) (yamlType, bool) {
	t, ok := typeMap[tag]
	if !ok || (kind != "fallback" && t.kind != kind) {
		return yamlType{}, false
	}
	return t, true
}

// implicit is the implicit resolution order: null, bool, int, float,
// timestamp, merge.
var implicit = []struct {
	tag string
	f   func(*Value) (*Value, bool)
}{
	{tagPrefix + "null", resolveNull},
	{tagPrefix + "bool", resolveBool},
	{tagPrefix + "int", resolveInt},
	{tagPrefix + "float", resolveFloat},
	{tagPrefix + "timestamp", resolveTimestamp},
	{tagPrefix + "merge", resolveMerge},
}

func resolveImplicit(d *Value) (*Value, string, bool) {
	for _, t := range implicit {
		if v, ok := t.f(d); ok {
			return v, t.tag, true
		}
	}
	return nil, "", false
}

// text returns the scalar's text; ok false for null.
func text(d *Value) (string, bool) {
	if d == nil {
		return "", false
	}
	return d.String(), true
}

func resolveNull(d *Value) (*Value, bool) {
	s, ok := text(d)
	if !ok || s == "~" || s == "null" || s == "Null" || s == "NULL" {
		return nil, true
	}
	return nil, false
}

func resolveBool(d *Value) (*Value, bool) {
	s, _ := text(d)
	switch s {
	case "true", "True", "TRUE":
		return &Value{Kind: Bool, Bool: true}, true
	case "false", "False", "FALSE":
		return &Value{Kind: Bool}, true
	}
	return nil, false
}

func resolveMerge(d *Value) (*Value, bool) {
	if d == nil {
		return nil, true
	}
	if s := d.String(); s == "<<" {
		return d, true
	}
	return nil, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f' }
func isOct(c byte) bool { return c >= '0' && c <= '7' }
func isDec(c byte) bool { return c >= '0' && c <= '9' }

var base60Tail = regexp.MustCompile(`^(:[0-5]?[0-9])+$`)

// intText is resolveYamlInteger on the scalar's UTF-16 text (the
// characters it tests are ASCII; any other unit fails it).
func intText(s string) bool {
	max := len(s)
	if max == 0 {
		return false
	}
	i := 0
	at := func(i int) byte {
		if i < max {
			return s[i]
		}
		return 0
	}
	ch := at(i)
	if ch == '-' || ch == '+' {
		i++
		ch = at(i)
	}
	hasDigits := false
	if ch == '0' {
		if i+1 == max {
			return true
		}
		i++
		ch = at(i)
		if ch == 'b' {
			i++
			for ; i < max; i++ {
				ch = s[i]
				if ch == '_' {
					continue
				}
				if ch != '0' && ch != '1' {
					return false
				}
				hasDigits = true
			}
			return hasDigits && ch != '_'
		}
		if ch == 'x' {
			i++
			for ; i < max; i++ {
				ch = s[i]
				if ch == '_' {
					continue
				}
				if !isHex(ch) {
					return false
				}
				hasDigits = true
			}
			return hasDigits && ch != '_'
		}
		for ; i < max; i++ {
			ch = s[i]
			if ch == '_' {
				continue
			}
			if !isOct(ch) {
				return false
			}
			hasDigits = true
		}
		return hasDigits && ch != '_'
	}
	if ch == '_' {
		return false
	}
	for ; i < max; i++ {
		ch = s[i]
		if ch == '_' {
			continue
		}
		if ch == ':' {
			break
		}
		if !isDec(ch) {
			return false
		}
		hasDigits = true
	}
	if !hasDigits || ch == '_' {
		return false
	}
	if ch != ':' {
		return true
	}
	return base60Tail.MatchString(s[i:])
}

func resolveInt(d *Value) (*Value, bool) {
	s, ok := text(d)
	if !ok || !isASCII(s) || !intText(s) {
		return nil, false
	}
	return &Value{Kind: Number, Num: constructInt(s)}, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// parseIntPrefix is parseInt(s, base) for the digits intText allowed.
func parseIntPrefix(s string, base int) float64 {
	n, ok := new(big.Int).SetString(s, base)
	if !ok {
		return math.NaN()
	}
	f, _ := new(big.Float).SetInt(n).Float64()
	return f
}

func constructInt(v string) float64 {
	v = strings.ReplaceAll(v, "_", "")
	sign := 1.0
	if v[0] == '-' || v[0] == '+' {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	if v == "0" {
		return 0
	}
	if v[0] == '0' {
		if len(v) > 1 && v[1] == 'b' {
			return sign * parseIntPrefix(v[2:], 2)
		}
		if len(v) > 1 && v[1] == 'x' {
			return sign * parseIntPrefix(v[2:], 16)
		}
		return sign * parseIntPrefix(v, 8)
	}
	if strings.Contains(v, ":") {
		parts := strings.Split(v, ":")
		value, base := 0.0, 1.0
		for i := len(parts) - 1; i >= 0; i-- {
			value += parseIntPrefix(parts[i], 10) * base
			base *= 60
		}
		return sign * value
	}
	return sign * parseIntPrefix(v, 10)
}

var floatPattern = regexp.MustCompile(`^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?` +
	`|\.[0-9_]+(?:[eE][-+]?[0-9]+)?` +
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*` +
	`|[-+]?\.(?:inf|Inf|INF)` +
	`|\.(?:nan|NaN|NAN))$`)

func resolveFloat(d *Value) (*Value, bool) {
	s, ok := text(d)
	if !ok || !floatPattern.MatchString(s) || s[len(s)-1] == '_' {
		return nil, false
	}
	return &Value{Kind: Number, Num: constructFloat(s)}, true
}

func constructFloat(s string) float64 {
	v := strings.ToLower(strings.ReplaceAll(s, "_", ""))
	sign := 1.0
	if v[0] == '-' {
		sign = -1
	}
	if v[0] == '+' || v[0] == '-' {
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1)
	case v == ".nan":
		return math.NaN()
	case strings.Contains(v, ":"):
		parts := strings.Split(v, ":")
		value, base := 0.0, 1.0
		for i := len(parts) - 1; i >= 0; i-- {
			value += parseFloatPrefix(parts[i]) * base
			base *= 60
		}
		return sign * value
	}
	return sign * parseFloatPrefix(v)
}

// parseFloatPrefix is parseFloat for the texts floatPattern allows.
func parseFloatPrefix(s string) float64 {
	if s == "" || s == "." {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "."), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f
		}
		return math.NaN()
	}
	return f
}

var (
	dateRE      = regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9])-([0-9][0-9])$`)
	timestampRE = regexp.MustCompile(`^([0-9][0-9][0-9][0-9])-([0-9][0-9]?)-([0-9][0-9]?)(?:[Tt]|[ \t]+)([0-9][0-9]?):([0-9][0-9]):([0-9][0-9])(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9][0-9]?)(?::([0-9][0-9]))?))?$`)
)

func resolveTimestamp(d *Value) (*Value, bool) {
	s, ok := text(d)
	if !ok {
		return nil, false
	}
	m := dateRE.FindStringSubmatch(s)
	if m == nil {
		m = timestampRE.FindStringSubmatch(s)
	}
	if m == nil {
		return nil, false
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := atoi(m[1]), atoi(m[2])-1, atoi(m[3])
	if len(m) < 5 || m[4] == "" {
		return &Value{Kind: Date, Num: dateUTC(year, month, day, 0, 0, 0, 0)}, true
	}
	fraction := 0
	if m[7] != "" {
		f := m[7]
		if len(f) > 3 {
			f = f[:3]
		}
		for len(f) < 3 {
			f += "0"
		}
		fraction = atoi(f)
	}
	ms := dateUTC(year, month, day, atoi(m[4]), atoi(m[5]), atoi(m[6]), fraction)
	if m[9] != "" {
		delta := float64((atoi(m[10])*60 + atoi(m[11])) * 60000)
		if m[9] == "-" {
			delta = -delta
		}
		ms -= delta
	}
	return &Value{Kind: Date, Num: ms}, true
}

// dateUTC is Date.UTC for the small field values a timestamp holds (a
// month or day out of range carries over, as in JavaScript).
func dateUTC(year, month, day, hour, min, sec, ms int) float64 {
	if 0 <= year && year <= 99 {
		year += 1900
	}
	t := time.Date(year, time.Month(month+1), day, hour, min, sec, ms*int(time.Millisecond), time.UTC)
	return float64(t.UnixMilli())
}

const base64Map = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n\r"

func resolveBinary(d *Value) (*Value, bool) {
	if d == nil {
		return nil, false
	}
	bitlen := 0
	for _, c := range d.str {
		code := -1
		if c < 0x80 {
			code = strings.IndexByte(base64Map, byte(c))
		}
		if code > 64 {
			continue
		}
		if code < 0 {
			return nil, false
		}
		bitlen += 6
	}
	if bitlen%8 != 0 {
		return nil, false
	}
	var in []int
	for _, c := range d.str {
		if c == '\r' || c == '\n' || c == '=' {
			continue
		}
		in = append(in, strings.IndexByte(base64Map, byte(c)))
	}
	var out []byte
	bits := 0
	for i, c := range in {
		if i%4 == 0 && i > 0 {
			out = append(out, byte(bits>>16), byte(bits>>8), byte(bits))
		}
		bits = bits<<6 | c
	}
	switch len(in) % 4 * 6 {
	case 0:
		out = append(out, byte(bits>>16), byte(bits>>8), byte(bits))
	case 18:
		out = append(out, byte(bits>>10), byte(bits>>2))
	case 12:
		out = append(out, byte(bits>>4))
	}
	return &Value{Kind: Binary, Bytes: out}, true
}

func resolveOmap(d *Value) (*Value, bool) {
	if d == nil {
		return &Value{Kind: Seq}, true
	}
	seen := map[string]bool{}
	for _, pair := range d.Elems {
		if pair == nil || pair.Kind != Map || len(pair.obj.keys) != 1 {
			return nil, false
		}
		k := pair.obj.keys[0]
		if seen[k] {
			return nil, false
		}
		seen[k] = true
	}
	return d, true
}

func resolvePairs(d *Value) (*Value, bool) {
	if d == nil {
		return &Value{Kind: Seq}, true
	}
	out := &Value{Kind: Seq}
	for _, pair := range d.Elems {
		if pair == nil || pair.Kind != Map || len(pair.obj.keys) != 1 {
			return nil, false
		}
		k := pair.obj.keys[0]
		out.Elems = append(out.Elems, &Value{Kind: Seq, Elems: []*Value{{Kind: String, str: stringToUnits(k)}, pair.obj.vals[k]}})
	}
	return out, true
}

func resolveSet(d *Value) (*Value, bool) {
	if d == nil {
		return newObject(), true
	}
	for _, k := range d.obj.keys {
		if d.obj.vals[k] != nil {
			return nil, false
		}
	}
	return d, true
}
