package cascade

import "testing"

// TestAnthropicUsageCountsCompactionIterations: with server-side
// compaction the top-level usage leaves the compaction step out; the
// tokens billed are the sum over usage.iterations.
func TestAnthropicUsageCountsCompactionIterations(t *testing.T) {
	for _, tc := range []struct {
		name       string
		raw        string
		want       Usage
		wantCached int64
	}{
		{"top level only", `{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 30}`,
			Usage{InputTokens: 135, OutputTokens: 20}, 30},
		{"iterations", `{"input_tokens": 23000, "output_tokens": 1000, "cache_read_input_tokens": 0, "iterations": [
			{"type": "compaction", "input_tokens": 180000, "output_tokens": 3500},
			{"type": "message", "input_tokens": 23000, "output_tokens": 1000, "cache_read_input_tokens": 200}]}`,
			Usage{InputTokens: 203200, OutputTokens: 4500}, 200},
		{"empty iterations", `{"input_tokens": 7, "output_tokens": 3, "iterations": []}`, Usage{InputTokens: 7, OutputTokens: 3}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, cached, err := AnthropicUsage([]byte(tc.raw))
			if err != nil || u != tc.want || cached != tc.wantCached {
				t.Fatalf("got %+v cached %d, %v; want %+v cached %d", u, cached, err, tc.want, tc.wantCached)
			}
		})
	}
}
