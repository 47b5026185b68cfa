#!/usr/bin/env bash
# Measures compact eval's measures on a corpus of real Claude Code
# transcripts (the public entireio/cli checkpoint corpus: see
# scripts/corpus/claude-code.sh to fetch it): every recorded compaction
# becomes a bundle with its continuation; the built-in model replays them
# with the agent's pack and with examples/packs/terse; then
#   1. compact eval --validate: the validity ladder of the recorded
#      summaries (concordance, history dumps, not measurable);
#   2. compact eval: the recorded summaries against the two packs, on the
#      grounded score and on coverage, with sizes.
# These are the figures of README.md ("Is the score any good?") and
# docs/measures.md.
#
#   scripts/corpus/measures.sh CORPUS_DIR [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${1:?usage: scripts/corpus/measures.sh CORPUS_DIR [OUT_DIR]}
out=${2:-$(mktemp -d)/bundles}
bin=$(mktemp -d)/compact
go build -o "$bin" .
"$bin" extract --from claude-code "$corpus" --out "$out" --force --quiet 2>/dev/null
"$bin" replay --model builtin --run agent-pack "$out" --quiet
"$bin" replay --model builtin --pack examples/packs/terse --run terse-pack "$out" --quiet
echo "## compact eval --validate"
"$bin" eval --validate "$out" || true
echo
echo "## compact eval --run agent-pack,terse-pack"
"$bin" eval --run agent-pack,terse-pack --worst 0 "$out"
