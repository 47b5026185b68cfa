package boundary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// marshal is json.Marshal without HTML escaping (the explanations hold ">").
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// jsFloat is a float64 whose JSON form is a number when finite and one of
// the strings "NaN", "Infinity", "-Infinity" otherwise (encoding/json
// refuses non-finite numbers).
type jsFloat float64

func (f jsFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(v)
}

func (f *jsFloat) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		switch s {
		case "NaN":
			*f = jsFloat(math.NaN())
		case "Infinity":
			*f = jsFloat(math.Inf(1))
		case "-Infinity":
			*f = jsFloat(math.Inf(-1))
		default:
			return fmt.Errorf("boundary: %q is not a number", s)
		}
		return nil
	}
	var v float64
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = jsFloat(v)
	return nil
}

// resultJSON is Result with KeptTokens (its last field, so the field order
// is kept) able to carry NaN.
type resultJSON struct {
	resultPlain
	KeptTokens jsFloat `json:"keptTokens"`
}

type resultPlain Result

// MarshalJSON writes the vectors' field names, then the debugging fields;
// a non-finite KeptTokens is written as a string ("NaN").
func (r Result) MarshalJSON() ([]byte, error) {
	return marshal(resultJSON{resultPlain(r), jsFloat(r.KeptTokens)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(data []byte) error {
	var w resultJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Result(w.resultPlain)
	r.KeptTokens = float64(w.KeptTokens)
	return nil
}

type triggerJSON struct {
	Trigger       bool     `json:"trigger"`
	UsedTokens    jsFloat  `json:"usedTokens"`
	Threshold     jsFloat  `json:"threshold"`
	ContextWindow *int     `json:"contextWindow"`
	HardCap       jsFloat  `json:"hardCap"`
	Limit         *jsFloat `json:"limit"`
	Reason        string   `json:"reason"`
	Explanation   string   `json:"explanation"`
}

// MarshalJSON writes non-finite numbers as strings ("NaN", "Infinity").
func (r TriggerResult) MarshalJSON() ([]byte, error) {
	w := triggerJSON{
		Trigger:       r.Trigger,
		UsedTokens:    jsFloat(r.UsedTokens),
		Threshold:     jsFloat(r.Threshold),
		ContextWindow: r.ContextWindow,
		HardCap:       jsFloat(r.HardCap),
		Reason:        r.Reason,
		Explanation:   r.Explanation,
	}
	if r.Limit != nil {
		l := jsFloat(*r.Limit)
		w.Limit = &l
	}
	return marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *TriggerResult) UnmarshalJSON(data []byte) error {
	var w triggerJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = TriggerResult{
		Trigger:       w.Trigger,
		UsedTokens:    float64(w.UsedTokens),
		Threshold:     float64(w.Threshold),
		ContextWindow: w.ContextWindow,
		HardCap:       float64(w.HardCap),
		Reason:        w.Reason,
		Explanation:   w.Explanation,
	}
	if w.Limit != nil {
		l := float64(*w.Limit)
		r.Limit = &l
	}
	return nil
}
