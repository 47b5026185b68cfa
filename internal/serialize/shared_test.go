package serialize

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// dagText is a message whose text part is an array sharing each level
// (referentialEqualities): String() of it doubles per level, 2^(depth+1)-1
// units.
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
	ok, _ := history.DecodeSuperJSON(`{"json":{"role":"user","parts":[{"type":"text","text":"hi"}]}}`)

	// Small: the text is String() of the shared array, as written out.
	small, err := history.DecodeSuperJSON(dagText("assistant", 3))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Serialize([]history.Value{small}, Options{}), "<assistant>x,x,x,x,x,x,x,x\nafter</assistant>"; got != want {
		t.Fatalf("depth 3: %q, want %q", got, want)
	}

	for _, tc := range []struct {
		depth int
		// warned: the text is past what compact builds but within what
		// JavaScript does, so the output may differ from the upstream's.
		warned bool
	}{
		// 2^41-1 units: String() throws RangeError in JavaScript too,
		// caught by the part's catch: the assistant part is a marker,
		// the user part is left out. Nothing to warn about.
		{40, false},
		// 2^27-1 units: JavaScript builds it; compact does not.
		{26, true},
	} {
		var problems []Problem
		start := time.Now()
		asst, _ := history.DecodeSuperJSON(dagText("assistant", tc.depth))
		user, _ := history.DecodeSuperJSON(dagText("user", tc.depth))
		got := Serialize([]history.Value{ok, asst, user, ok}, Options{Problems: func(p Problem) { problems = append(problems, p) }})
		if el := time.Since(start); el > 5*time.Second {
			t.Fatalf("depth %d took %v", tc.depth, el)
		}
		want := "<user>hi</user>\n<assistant>[text: serialization-error]\nafter</assistant>\n<user>after</user>\n<user>hi</user>"
		if got != want {
			t.Fatalf("depth %d: %.200q, want %q", tc.depth, got, want)
		}
		if !tc.warned {
			if len(problems) != 0 {
				t.Fatalf("depth %d: problems %v", tc.depth, problems)
			}
			continue
		}
		if len(problems) != 2 || problems[0].Message != 1 || problems[0].Part != 0 || problems[1].Message != 2 || problems[1].Part != 0 ||
			!strings.Contains(problems[0].What, "64 MiB") {
			t.Fatalf("depth %d: problems %v", tc.depth, problems)
		}
	}
}

// dagAt is a superjson message whose value at path (under the message) is
// an array sharing each of depth levels, and whose other members are
// given as JSON by fill (with %s where the array goes).
func dagAt(fill, path string, depth int) string {
	node := `"x"`
	for i := 0; i < depth; i++ {
		node = `[` + node + `,null]`
	}
	var eq []string
	for k := 0; k < depth; k++ {
		p := path + strings.Repeat(".0", k)
		eq = append(eq, fmt.Sprintf(`%q:[%q]`, p+".0", p+".1"))
	}
	return `{"json":` + fmt.Sprintf(fill, node) + `,"meta":{"referentialEqualities":{` + strings.Join(eq, ",") + `}}}`
}

// An annotation name compact does not build is a Problem, unless an
// attachment's path throws anyway: the upstream reads every path before
// it writes a name.
func TestSharedReferencesInAnnotations(t *testing.T) {
	for _, tc := range []struct {
		name, fill, path string
		want             string
		problems         int
	}{
		{"name too large", `{"role":"user","parts":[],"metadata":{"attachments":[{"originalFileName":%s}],"mentions":[{"providerType":"tab","title":"T"}]}}`,
			"metadata.attachments.0.originalFileName", "<user></user>", 1},
		{"then a path that throws", `{"role":"user","parts":[],"metadata":{"attachments":[{"originalFileName":%s},{"path":5}]}}`,
			"metadata.attachments.0.originalFileName", "<user></user>", 0},
		{"mention too large", `{"role":"user","parts":[],"metadata":{"attachments":[{"path":"a/b"}],"mentions":[{"providerType":"tab","title":%s}]}}`,
			"metadata.mentions.0.title", "<user>[attached: b]</user>", 1},
		{"summary too large", `{"role":"user","parts":[],"metadata":{"compressedHistory":%s}}`,
			"metadata.compressedHistory", "<previous-chat-history></previous-chat-history>\n<user></user>", 1},
	} {
		v, err := history.DecodeSuperJSON(dagAt(tc.fill, tc.path, 26))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var problems []Problem
		got := Serialize([]history.Value{v}, Options{Problems: func(p Problem) { problems = append(problems, p) }})
		if got != tc.want || len(problems) != tc.problems {
			t.Errorf("%s: %q, problems %v; want %q and %d", tc.name, got, problems, tc.want, tc.problems)
		}
		for _, p := range problems {
			if p.Message != 0 || p.Part != -1 || p.Dropped {
				t.Errorf("%s: problem %+v", tc.name, p)
			}
		}
	}
}
