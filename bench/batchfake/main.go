// Command batchfake is a loopback stand-in for the batch APIs of OpenAI,
// Anthropic and Gemini (internal/batch/fakebatch), for bench/batch.sh.
//
//	batchfake -gen DIR -bundles N   writes N minimal bundles under DIR
//	batchfake [-polls N]            serves on 127.0.0.1, prints its base
//	                                URL on the first line of stdout, and
//	                                exits by itself after -lifetime
//
// GET /_stats answers its counters as JSON: HTTP requests, model requests
// received in batches, batches created, batches over a provider's limits.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/compactlab/compact/internal/batch/fakebatch"
)

func main() {
	gen := flag.String("gen", "", "write bundles under this directory and exit")
	n := flag.Int("bundles", 10000, "with -gen: how many bundles")
	polls := flag.Int("polls", 0, "polls a batch stays in progress before it ends")
	lifetime := flag.Duration("lifetime", 30*time.Minute, "exit after this long")
	flag.Parse()

	if *gen != "" {
		if _, err := fakebatch.WriteBundles(*gen, *n, nil); err != nil {
			fmt.Fprintln(os.Stderr, "batchfake:", err)
			os.Exit(1)
		}
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "batchfake:", err)
		os.Exit(1)
	}
	srv := fakebatch.New()
	srv.Polls = *polls
	mux := http.NewServeMux()
	mux.HandleFunc("/_stats", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]int64{
			"calls": srv.Calls(""), "requests": srv.Requests(), "batches": srv.Created(), "overLimits": srv.OverLimits(),
		})
	})
	mux.Handle("/", srv)
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		time.Sleep(*lifetime)
		os.Exit(0)
	}()
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, "batchfake:", err)
		os.Exit(1)
	}
}
