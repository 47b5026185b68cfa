package cmd

import (
	"io"
	"os"
	"strings"

	"github.com/compactlab/compact/internal/history"
)

// readInput reads the file named by args[0], or stdin when there is none
// or it is "-".
func readInput(f *Factory, args []string) (text, name string, err error) {
	var data []byte
	name = "stdin"
	if len(args) > 0 && args[0] != "-" {
		name = args[0]
		data, err = os.ReadFile(name)
	} else {
		data, err = io.ReadAll(f.IO.In)
	}
	if err != nil {
		return "", name, usageErr("%v", err)
	}
	return string(data), name, nil
}

// decodeInput decodes superjson text; bad input is a usage error (exit 2).
func decodeInput(text, name string) (history.Value, error) {
	v, err := history.DecodeSuperJSON(text)
	if err != nil {
		if len(text) == 0 {
			return v, usageErr("%s is empty: expected superjson text such as {\"json\":[…]}", name)
		}
		return v, usageErr("%s: %v", name, err)
	}
	return v, nil
}

// decodeMessages decodes a superjson message array.
func decodeMessages(text, name string) ([]history.Value, error) {
	v, err := decodeInput(text, name)
	if err != nil {
		return nil, err
	}
	if v.Kind() != history.Array {
		return nil, usageErr("%s holds %s, not a message array (superjson {\"json\":[…]})", name, describeTop(v))
	}
	return v.Elems(), nil
}

func describeTop(v history.Value) string {
	if v.IsUndefined() {
		return "no \"json\" value"
	}
	k := v.Kind().String()
	if strings.ContainsRune("aeiouAEIOU", rune(k[0])) {
		return "an " + k
	}
	return "a " + k
}

// writeText writes s as Node would write it: lone surrogates as U+FFFD.
func writeText(w io.Writer, s string) error {
	_, err := io.WriteString(w, history.ToWellFormed(s))
	return err
}
