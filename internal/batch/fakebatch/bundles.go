package fakebatch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compactlab/compact/internal/bundle"
)

// WriteBundles writes n minimal bundles under dir, chat-NNNNN/compression-001
// (the five files of internal/bundle's layout), and returns their
// directories in order. plant, when
// not nil, adds text to the i-th user message (a marker of
// DefaultAnswer). Every user message differs; the system prompt is the
// same for all.
func WriteBundles(dir string, n int, plant func(i int) string) ([]string, error) {
	const system = "You compress the history of a coding agent's chat into a briefing.\nKeep every path as a link, and end with the current working state.\n"
	out := make([]string, 0, n)
	for i := range n {
		b := filepath.Join(dir, fmt.Sprintf("chat-%05d", i), bundle.CompressionDirName(1))
		if err := os.MkdirAll(b, 0o755); err != nil {
			return nil, err
		}
		history := fmt.Sprintf("<chat-history>\n<user>Fix the button colour in src/components/Button%d.tsx</user>\n<assistant>Changed it to #336699 in src/components/Button%d.tsx.</assistant>\n</chat-history>\n", i, i)
		user := "Summarise this history.\n\n" + history
		if plant != nil {
			if p := plant(i); p != "" {
				user += "\n" + p + "\n"
			}
		}
		files := map[string]string{
			bundle.FileSystemPrompt: system,
			bundle.FileUserMessage:  user,
			bundle.FileCompact:      history,
			bundle.FileActual:       "## Button colour\n\nThe button of [](path:src/components/Button.tsx) is #336699.\n",
			bundle.FileMetadata:     fmt.Sprintf(`{"chatId": "chat-%05d", "chatTitle": "Fix button %d", "compressionNumber": 1, "boundaryMessageIndex": 2, "previousCompressionIndex": null, "previousCompressionSize": null}`+"\n", i, i),
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(b, name), []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// Plant is the marker making DefaultAnswer fail for model: "fail" an
// error, "short" an answer too short.
func Plant(kind, model string) string {
	return "[[" + strings.ToLower(kind) + ":" + model + "]]"
}
