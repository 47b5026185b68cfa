package mdtext

import (
	"reflect"
	"testing"
)

func TestParseContinuation(t *testing.T) {
	in := "<assistant>[read: a.go]</assistant>\n<tool-output>x &lt; y &amp;&amp; z</tool-output>\n<user>go on</user>\n<tool-output>unclosed"
	want := []Turn{
		{FromAssistant, "[read: a.go]"},
		{FromOutput, "x < y && z"},
		{FromUser, "go on"},
		{FromOutput, "unclosed"},
	}
	if got := ParseContinuation(in).Turns; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Without outputs it reads as ParseHistory does.
	plain := "<user>a</user>\n<assistant>b</assistant>"
	if got, want := ParseContinuation(plain).Turns, ParseHistory(plain).Turns; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
