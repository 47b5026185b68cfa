package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// fnCompare runs compact's serialize and tokens commands on every input line
// of IN (the generator's fn.jsonl) and compares with the oracle's answers
// (ORACLE, same order). It prints "<class>\t<name>\t<detail>" per difference
// and returns how many inputs it compared and how many differ. UD_PROFILE,
// when set, is passed to both commands as --profile.
//
//	treecmp fn COMPACT IN ORACLE
func fnCompare(bin, in, oracle string) (int, int) {
	var prof []string
	if p := os.Getenv("UD_PROFILE"); p != "" {
		prof = []string{"--profile", p}
	}
	ins := readJSONL(in)
	outs := readJSONL(oracle)
	if len(ins) != len(outs) {
		fmt.Fprintf(os.Stderr, "treecmp fn: %d inputs, %d oracle answers\n", len(ins), len(outs))
		os.Exit(2)
	}
	tmp, err := os.MkdirTemp("", "treecmp-fn")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	n, bad := 0, 0
	for i, v := range ins {
		var op, name, raw string
		_ = json.Unmarshal(v["op"], &op)
		_ = json.Unmarshal(v["name"], &name)
		_ = json.Unmarshal(v["raw"], &raw)
		want := outs[i]
		if _, isErr := want["error"]; isErr {
			continue // superjson rejects the input: nothing to compare
		}
		n++
		switch op {
		case "serialize":
			args := append([]string{"serialize"}, prof...)
			if rs := v["resolvedSlash"]; len(rs) > 0 && string(rs) != "null" {
				f := filepath.Join(tmp, "slash.json")
				_ = os.WriteFile(f, rs, 0o644)
				args = append(args, "--resolved-slash", f)
			}
			got, errOut, code := runBin(bin, raw, args...)
			var exp string
			_ = json.Unmarshal(want["expected"], &exp)
			// The oracle's JSON may hold lone surrogates (\udXXX); Go's
			// decoder turns them into U+FFFD, exactly what Node writes.
			if code != 0 || got != exp {
				bad++
				l1, l2 := firstDiffLine([]byte(exp), []byte(got))
				fmt.Printf("fn-serialize:%s vs %s\t%s\tupstream %q | compact %q (exit %d %s)\n", shape(l1), shape(l2), name, clip(l1), clip(l2), code, oneLine(errOut))
			}
		case "estimate", "estimateEach":
			got, errOut, code := runBin(bin, raw, append([]string{"tokens"}, prof...)...)
			var exp []any
			if op == "estimate" {
				var one any
				_ = json.Unmarshal(want["expected"], &one)
				exp = []any{one}
			} else {
				_ = json.Unmarshal(want["expected"], &exp)
			}
			var ws []string
			for _, e := range exp {
				ws = append(ws, fmt.Sprint(e))
			}
			gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
			if len(exp) == 0 && strings.TrimSpace(got) == "" {
				gotLines = nil
			}
			if code != 0 || strings.Join(gotLines, ",") != strings.Join(ws, ",") {
				bad++
				cls := "length"
				for j := range ws {
					if j < len(gotLines) && ws[j] != gotLines[j] {
						cls = kindOf(ws[j]) + " vs " + kindOf(gotLines[j])
						break
					}
				}
				fmt.Printf("fn-estimate:%s\t%s\tupstream [%s] | compact [%s] (exit %d %s)\n", cls, name, strings.Join(ws, ","), strings.Join(gotLines, ","), code, oneLine(errOut))
			}
		}
	}
	return n, bad
}

func runBin(bin, stdin string, args ...string) (string, string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Env = append(os.Environ(), "TZ=UTC")
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return out.String(), errOut.String(), code
}

func readJSONL(path string) []map[string]json.RawMessage {
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out = append(out, v)
	}
	return out
}

func kindOf(s string) string {
	switch s {
	case "NaN", "throws", "Infinity":
		return s
	}
	return "number"
}

func oneLine(s string) string {
	return clip(strings.ReplaceAll(strings.TrimSpace(s), "\n", " / "))
}
