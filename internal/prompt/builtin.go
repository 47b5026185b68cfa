package prompt

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// builtinFS holds the built-in packs, one directory each under packs/.
//
//go:embed packs
var builtinFS embed.FS

// DefaultPackName is the name of the pack used when none is chosen.
const DefaultPackName = "default"

// BuiltinNames lists the built-in packs.
func BuiltinNames() []string {
	entries, err := fs.ReadDir(builtinFS, "packs")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// Builtin returns a fresh copy of the built-in pack name ("default").
func Builtin(name string) (*Pack, error) {
	for _, n := range BuiltinNames() {
		if n == name {
			p, err := loadPackFS(builtinFS, "packs/"+name)
			if err != nil {
				return nil, fmt.Errorf("built-in prompt pack %q: %w", name, err)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("no built-in prompt pack %q (built in: %s)", name, strings.Join(BuiltinNames(), ", "))
}

// Resolve returns the pack that spec names: "" or the name of a built-in
// pack (e.g. "default") gives the built-in one; anything else is a pack
// directory. Write "./default" for a directory that shares a built-in name.
func Resolve(spec string) (*Pack, error) {
	if spec == "" {
		spec = DefaultPackName
	}
	if !strings.ContainsAny(spec, `/\`) {
		for _, n := range BuiltinNames() {
			if n == spec {
				return Builtin(spec)
			}
		}
	}
	return LoadPack(spec)
}
