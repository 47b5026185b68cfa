package serialize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// dagText is a message whose text part is an array sharing each level
// (referentialEqualities): String() of it doubles per level.
func dagText(role string, depth int) string {
	node := `"x"`
	for i := 0; i < depth; i++ {
		node = `[` + node + `,null]`
	}
	var eq []string
	for k := 0; k < depth; k++ {
		p := "parts.0.text" + strings.Repeat(".0", k)
		eq = append(eq, fmt.Sprintf(`%q:[%q]`, p+".0", p+".1"))
	}
	return `{"json":{"id":"m","role":"` + role + `","parts":[{"type":"text","text":` + node +
		`},{"type":"text","text":"after"}]},"meta":{"referentialEqualities":{` + strings.Join(eq, ",") + `}}}`
}

func TestSharedReferencesSerialize(t *testing.T) {
	var warned []string
	defer func(w func(string)) { Warn = w }(Warn)
	Warn = func(m string) { warned = append(warned, m) }
	ok, _ := history.DecodeSuperJSON(`{"json":{"role":"user","parts":[{"type":"text","text":"hi"}]}}`)

	// Small: the text is String() of the shared array, as written out.
	small, err := history.DecodeSuperJSON(dagText("assistant", 3))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Serialize([]history.Value{small}, Options{}), "<assistant>x,x,x,x,x,x,x,x\nafter</assistant>"; got != want {
		t.Fatalf("depth 3: %q, want %q", got, want)
	}

	start := time.Now()
	asst, _ := history.DecodeSuperJSON(dagText("assistant", 40))
	user, _ := history.DecodeSuperJSON(dagText("user", 40))
	got := Serialize([]history.Value{ok, asst, user, ok}, Options{})
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("depth 40 took %v", el)
	}
	// Both throw past the cap: each message is skipped whole, with a
	// warning.
	want := "<user>hi</user>\n<user>hi</user>"
	if got != want {
		t.Fatalf("depth 40: %.200q, want %q", got, want)
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "64 MiB") {
		t.Fatalf("warnings: %q", warned)
	}
}
