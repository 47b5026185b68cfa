package bundle

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
)

// The five files of a bundle as the upstream extraction writes them.
const (
	FileSystemPrompt = "system-prompt.md"
	FileUserMessage  = "user-message.md"
	FileCompact      = "compact-history.xml"
	FileActual       = "actual-output.md"
	FileMetadata     = "metadata.json"
	// FileCount is how many files the upstream writes in a bundle.
	FileCount = 5
)

// FileContinuation is compact's own file beside the five: what the
// session did after the compaction, up to the next one (at most a few
// thousand turns), in the compact history's layout with the tools'
// outputs (mdtext.ParseContinuation). The grounded measure of eval reads
// it; the upstream playground ignores it.
const FileContinuation = "continuation.xml"

// Replays: <bundle>/replays/<run>/output.md and replay.json.
const (
	DirReplays = "replays"
	FileOutput = "output.md"
	FileRecord = "replay.json"
)

// DirJudge holds a bundle's judge records, <bundle>/judge/<run>.json.
const DirJudge = "judge"

// RunDir is <bundle>/replays/<run>.
func RunDir(bundle, run string) string { return filepath.Join(bundle, DirReplays, run) }

// OutputPath is <bundle>/replays/<run>/output.md, a run's answer.
func OutputPath(bundle, run string) string { return filepath.Join(RunDir(bundle, run), FileOutput) }

// RecordPath is <bundle>/replays/<run>/replay.json, a run's record.
func RecordPath(bundle, run string) string { return filepath.Join(RunDir(bundle, run), FileRecord) }

// JudgePath is <bundle>/judge/<run>.json, the judge's record of a run.
func JudgePath(bundle, run string) string {
	return filepath.Join(bundle, DirJudge, run+".json")
}

// CompressionDirName is a bundle's directory name: "compression-" + pad3(n).
func CompressionDirName(n int) string {
	return fmt.Sprintf("compression-%03d", n)
}

var compressionDirRe = regexp.MustCompile(`^compression-(\d+)$`)

// CompressionOf is the compression number a bundle directory's name
// gives (compression-NNN), 0 when it gives none.
func CompressionOf(dir string) int {
	m := compressionDirRe.FindStringSubmatch(filepath.Base(dir))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
