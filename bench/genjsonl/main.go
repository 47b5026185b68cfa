// Command genjsonl writes a synthetic generic JSONL history for
// `compact simulate --jsonl` benchmarks (bench/simulate.sh):
//
//	go run ./bench/genjsonl -shape chain -n 200000 > big.jsonl
//
// Shapes: list (no parent_id), chain (each line's parent is the line
// before), cycle (n messages whose parent_id points round).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
)

func main() {
	shape := flag.String("shape", "chain", "list, chain or cycle")
	n := flag.Int("n", 200000, "messages")
	flag.Parse()
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i := 0; i < *n; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		parent := ""
		switch *shape {
		case "list":
		case "chain":
			if i > 0 {
				parent = fmt.Sprintf(`"parent_id":"m%d",`, i-1)
			}
		case "cycle":
			parent = fmt.Sprintf(`"parent_id":"m%d",`, (i+*n-1)%*n)
		default:
			fmt.Fprintf(os.Stderr, "genjsonl: unknown shape %q\n", *shape)
			os.Exit(2)
		}
		fmt.Fprintf(w, `{"id":"m%d",%s"role":%q,"content":"message %d: please look at w1/src/file%d.ts and tell me what it does"}`+"\n", i, parent, role, i, i%97)
	}
}
