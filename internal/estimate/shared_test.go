package estimate

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/compactlab/compact/internal/history"
)

// dagMessage is an assistant message whose tool input shares each level
// (referentialEqualities): level k is {"a": level k+1, "b": level k+1}.
func dagMessage(depth int) string {
	node := `"leaf-text"`
	for i := 0; i < depth; i++ {
		node = `{"a":` + node + `,"b":null}`
	}
	var eq []string
	for k := 0; k < depth; k++ {
		p := "parts.0.input" + strings.Repeat(".a", k)
		eq = append(eq, fmt.Sprintf(`%q:[%q]`, p+".a", p+".b"))
	}
	return `{"json":{"id":"m","role":"assistant","parts":[{"type":"tool-x","toolName":"x","input":` + node +
		`}]},"meta":{"referentialEqualities":{` + strings.Join(eq, ",") + `},"v":1}}`
}

// want is ceil((len("x") + J(input) + 400) / 4), J(input) the closed form
// 11 + 2*J(level below) over the 11-unit leaf, or 0 past V8's string
// limit (JSON.stringify throws).
func want(depth int) float64 {
	j := 11
	for i := 0; i < depth; i++ {
		j = 11 + 2*j
	}
	if j > history.MaxStringLength {
		j = 0
	}
	return math.Ceil(float64(1+j+MetadataBase) / CharsPerToken)
}

func TestSharedReferencesTokens(t *testing.T) {
	start := time.Now()
	for depth := 0; depth <= 40; depth++ {
		msg, err := history.DecodeSuperJSON(dagMessage(depth))
		if err != nil {
			t.Fatal(err)
		}
		got, err := MessageTokens(msg)
		if err != nil || got != want(depth) {
			t.Fatalf("depth %d: %v, %v; want %v", depth, got, err, want(depth))
		}
	}
	// Before the memo, depth 26 alone took seconds and 40 about 29 hours.
	// A hang guard, not a speed target: generous for loaded cores.
	if el := time.Since(start); el > 30*time.Second {
		t.Fatalf("depths 0..40 took %v", el)
	}
	// Two known points: the last depth under the limit, the first over.
	if want(24) != 92274786 || want(25) != 101 {
		t.Fatalf("closed form: %v %v", want(24), want(25))
	}
}
