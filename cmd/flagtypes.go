package cmd

// typedString is a string flag whose help shows typ ("id", "url") in
// place of "string".
type typedString struct {
	p   *string
	typ string
}

func (s typedString) String() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}
func (s typedString) Set(v string) error { *s.p = v; return nil }
func (s typedString) Type() string       { return s.typ }
