// Command treecmp compares two output trees of the extraction byte for byte
// (part of scripts/upstream-diff; not run by CI).
//
//	treecmp manifest DIR      print DIR's manifest as testdata/conformance does:
//	                          "d <path>/" and "f <bytes> <sha256> <path>", depth
//	                          first, entries in byte order
//	treecmp diff UP COMPACT   compare two experiments-data trees; print one line
//	                          per differing bundle (or file outside a bundle):
//	                          "<class>\t<path>\t<first difference>"; exit 1 if
//	                          they differ
//	treecmp fn COMPACT IN ORACLE
//	                          run COMPACT serialize/tokens on the generator's
//	                          function-level inputs IN and compare with the
//	                          oracle's answers ORACLE
//
// A bundle is a compression-NNN directory. Its class names the first file that
// differs, in the order of fileOrder (the compact history, the metadata, the
// user message, the app's briefing, the system prompt), and the shape of the
// first differing line.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/compactlab/compact/internal/bundle"
)

func main() {
	if len(os.Args) < 3 {
		usage()
	}
	switch os.Args[1] {
	case "manifest":
		if _, err := os.Stat(os.Args[2]); err != nil {
			fmt.Println("(no experiments-data directory)")
			return
		}
		for _, l := range manifest(os.Args[2]) {
			fmt.Println(l)
		}
	case "diff":
		if len(os.Args) != 4 {
			usage()
		}
		if n := diffTrees(os.Args[2], os.Args[3]); n > 0 {
			os.Exit(1)
		}
	case "fn":
		if len(os.Args) != 5 {
			usage()
		}
		n, bad := fnCompare(os.Args[2], os.Args[3], os.Args[4])
		fmt.Fprintf(os.Stderr, "fn: %d compared, %d differ\n", n, bad)
		if bad > 0 {
			os.Exit(1)
		}
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: treecmp manifest DIR | treecmp diff UP COMPACT | treecmp fn COMPACT IN ORACLE")
	os.Exit(2)
}

func manifest(root string) []string {
	var lines []string
	var walk func(dir, rel string)
	walk = func(dir, rel string) {
		es, err := os.ReadDir(dir)
		if err != nil {
			lines = append(lines, "! "+err.Error())
			return
		}
		for _, e := range es {
			if e.Name() == bundle.FileContinuation {
				continue // compact's own file: the upstream writes none
			}
			p := e.Name()
			if rel != "" {
				p = rel + "/" + e.Name()
			}
			if e.IsDir() {
				lines = append(lines, "d "+p+"/")
				walk(filepath.Join(dir, e.Name()), p)
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				lines = append(lines, "! "+err.Error())
				continue
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("f %d %s %s", len(data), hex.EncodeToString(sum[:]), p))
		}
	}
	walk(root, "")
	return lines
}

// entries lists every path under root: directories end in "/".
func entries(root string) map[string]bool {
	m := map[string]bool{}
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root || d.Name() == bundle.FileContinuation {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		m[rel] = true
		return nil
	})
	return m
}

var fileOrder = []string{bundle.FileCompact, bundle.FileMetadata, bundle.FileUserMessage, bundle.FileActual, bundle.FileSystemPrompt}

func rank(name string) int {
	for i, f := range fileOrder {
		if f == name {
			return i
		}
	}
	return len(fileOrder)
}

type finding struct {
	rank         int
	class, where string
}

func diffTrees(up, co string) int {
	_, e1 := os.Stat(up)
	_, e2 := os.Stat(co)
	switch {
	case e1 != nil && e2 != nil:
		return 0
	case e1 != nil:
		fmt.Printf("tree:only-compact\t.\tupstream wrote no experiments-data\n")
		return 1
	case e2 != nil:
		fmt.Printf("tree:only-upstream\t.\tcompact wrote no experiments-data\n")
		return 1
	}
	a, b := entries(up), entries(co)
	all := map[string]bool{}
	for p := range a {
		all[p] = true
	}
	for p := range b {
		all[p] = true
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Group by bundle (…/compression-NNN) or by the path itself.
	groups := map[string]*finding{}
	var order []string
	add := func(key string, f finding) {
		if g, ok := groups[key]; ok {
			if f.rank < g.rank {
				*g = f
			}
			return
		}
		groups[key] = &f
		order = append(order, key)
	}
	for _, p := range paths {
		key, file := bundleOf(p)
		switch {
		case a[p] && !b[p]:
			if strings.HasSuffix(p, "/") && key != strings.TrimSuffix(p, "/") {
				add(key, finding{-2, "dir:only-upstream " + kind(p), p})
			} else if !strings.HasSuffix(p, "/") {
				add(key, finding{-1, "file:only-upstream " + file, p})
			} else {
				add(key, finding{-3, "dir:only-upstream " + kind(p), p})
			}
		case b[p] && !a[p]:
			if strings.HasSuffix(p, "/") {
				add(key, finding{-3, "dir:only-compact " + kind(p), p})
			} else {
				add(key, finding{-1, "file:only-compact " + file, p})
			}
		case !strings.HasSuffix(p, "/"):
			x, _ := os.ReadFile(filepath.Join(up, p))
			y, _ := os.ReadFile(filepath.Join(co, p))
			if !bytes.Equal(x, y) {
				cls, where := classify(file, x, y)
				add(key, finding{rank(file), cls, p + "\t" + where})
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		fmt.Printf("%s\t%s\n", g.class, g.where)
	}
	return len(order)
}

var compressionRE = regexp.MustCompile(`^(.*/compression-\d+)(/.*)?$`)

func bundleOf(p string) (key, file string) {
	q := strings.TrimSuffix(p, "/")
	if m := compressionRE.FindStringSubmatch(q); m != nil {
		return m[1], strings.TrimPrefix(m[2], "/")
	}
	return q, filepath.Base(q)
}

func kind(p string) string {
	q := strings.TrimSuffix(p, "/")
	switch {
	case compressionRE.MatchString(q):
		return "compression"
	case strings.Count(q, "/") == 2:
		return "chat"
	}
	return "other"
}

func classify(file string, x, y []byte) (string, string) {
	switch file {
	case bundle.FileMetadata:
		var m1, m2 map[string]json.RawMessage
		_ = json.Unmarshal(x, &m1)
		_ = json.Unmarshal(y, &m2)
		keys := []string{"chatId", "chatTitle", "channel", "compressionNumber", "totalCompressions", "totalChatMessages", "boundaryMessageIndex", "boundaryMessageId", "totalMessagesInSlice", "serializedMessageCount", "previousCompressionIndex", "previousCompressionSize", "compactHistoryChars", "userMessageChars", "actualOutputChars", "actualOutputIncludesPreviousTag", "slashIdsResolved"}
		for _, k := range keys {
			if !bytes.Equal(m1[k], m2[k]) {
				return bundle.FileMetadata + ":" + k, fmt.Sprintf("upstream %s | compact %s", clip(string(m1[k])), clip(string(m2[k])))
			}
		}
		l1, l2 := firstDiffLine(x, y)
		return bundle.FileMetadata + ":bytes", fmt.Sprintf("upstream %q | compact %q", clip(l1), clip(l2))
	case bundle.FileCompact:
		l1, l2 := firstDiffLine(x, y)
		return "xml:" + shape(l1) + " vs " + shape(l2), fmt.Sprintf("upstream %q | compact %q", clip(l1), clip(l2))
	}
	l1, l2 := firstDiffLine(x, y)
	return file, fmt.Sprintf("upstream %q | compact %q", clip(l1), clip(l2))
}

// firstDiffLine returns the first line (split on \n) where x and y differ;
// "<EOF>" when one side has no such line.
func firstDiffLine(x, y []byte) (string, string) {
	a := strings.Split(string(x), "\n")
	b := strings.Split(string(y), "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var s, t = "<EOF>", "<EOF>"
		if i < len(a) {
			s = a[i]
		}
		if i < len(b) {
			t = b[i]
		}
		if s != t {
			return s, t
		}
	}
	return "", ""
}

var shapeRE = regexp.MustCompile(`^(<(?:user|assistant|previous-chat-history|slash-command)\b>?)?(\[[a-zA-Z-]+[:\] ]?)?`)

// shape is a line's leading tag and marker, e.g. "<assistant>[read:".
func shape(l string) string {
	if l == "<EOF>" {
		return "EOF"
	}
	s := shapeRE.FindString(l)
	if strings.Contains(l, "serialization-error") {
		s += "…serialization-error"
	}
	if s == "" {
		return "text"
	}
	return s
}

func clip(s string) string {
	if len(s) <= 160 {
		return s
	}
	i := 160
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
