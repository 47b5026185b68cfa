// Command fakellm is a loopback stand-in for an OpenAI-compatible chat
// completions server, for bench/replay.sh: every request is answered after
// -delay with a fixed briefing. It listens on 127.0.0.1 only, prints its
// base URL on the first line of stdout, and exits by itself after -lifetime.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

func main() {
	delay := flag.Duration("delay", 100*time.Millisecond, "time before each answer")
	lifetime := flag.Duration("lifetime", 5*time.Minute, "exit after this long")
	flag.Parse()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
	var n atomic.Int64
	briefing := "## Replayed briefing\n\n" + strings.Repeat("You kept working on the task and recorded the outcome. ", 40) +
		"\n\n## Current working state\n\nYou last answered the user. Next, wait for the next request."
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		time.Sleep(*delay)
		id := n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("x-request-id", fmt.Sprintf("req_%d", id))
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": briefing}}},
			"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(briefing) / 4, "total_tokens": (len(body) + len(briefing)) / 4},
		})
	})
	fmt.Printf("http://%s\n", ln.Addr())
	go func() {
		time.Sleep(*lifetime)
		fmt.Fprintf(os.Stderr, "fakellm: lifetime over after %d requests\n", n.Load())
		os.Exit(0)
	}()
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(ln)
}
