#!/usr/bin/env bash
# Measures `compact extract --from claude-code` on a corpus of real Claude
# Code transcripts: for each Claude Code version, the compactions the
# files record (counted here with grep, independently of compact's reader)
# against the bundles compact writes, the ones it names as missed, and the
# bundles whose compact history is empty. Prints a markdown table (the one
# in docs/benchmarks.md).
#
#   scripts/corpus/claude-code.sh CORPUS_DIR
#   scripts/corpus/claude-code.sh CORPUS_DIR GIT_DIR
#
# CORPUS_DIR holds the transcripts (*.jsonl, any depth). With GIT_DIR, a
# clone of entireio/cli (a bare one will do), the transcripts of its branch
# entire/checkpoints/v1 are first copied into CORPUS_DIR (<xx>/<id>/<n>/
# full.jsonl; blobs missing from a partial clone are counted and skipped).
# Needs jq. The corpus is MIT-licensed (Copyright (c) 2026 Entire Inc.);
# nothing of it is written into this repository.
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=${1:?usage: scripts/corpus/claude-code.sh CORPUS_DIR [GIT_DIR]}
git_dir=${2:-}
command -v jq >/dev/null || { echo "scripts/corpus/claude-code.sh: needs jq (apt-get install jq)" >&2; exit 2; }

if [ -n "$git_dir" ]; then
  mkdir -p "$corpus"
  copied=0 missing=0
  while read -r _ _ sha _ path; do
    if git --git-dir="$git_dir" cat-file -e "$sha" 2>/dev/null; then
      mkdir -p "$corpus/$(dirname "$path")"
      git --git-dir="$git_dir" cat-file blob "$sha" >"$corpus/$path"
      copied=$((copied + 1))
    else
      missing=$((missing + 1))
    fi
  done < <(git --git-dir="$git_dir" ls-tree -r -l entire/checkpoints/v1 | awk '$5 ~ /\/full\.jsonl$/ {print $1, $2, $3, $4, $5}')
  echo "copied $copied transcripts ($missing not in this clone)" >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/compact" .

# What the files record: per file, its version and its compact_boundary
# records (a line may hold two records: grep -o counts each).
: >"$work/recorded.tsv"
while IFS= read -r -d '' f; do
  n=$( (grep -o '"subtype":"compact_boundary"' "$f" || true) | wc -l)
  [ "$n" -gt 0 ] || continue
  v=$( (grep -o -m1 '"version":"[^"]*"' "$f" || true) | head -n1 | cut -d'"' -f4)
  printf '%s\t%s\t%s\n' "$f" "${v:-unknown}" "$n" >>"$work/recorded.tsv"
done < <(find "$corpus" -name '*.jsonl' -print0)

# What compact writes, file by file.
cut -f1 "$work/recorded.tsv" | tr '\n' '\0' | xargs -0 "$work/compact" extract --from claude-code --out "$work/out" --json >"$work/sum.json" 2>"$work/warnings" || true
jq -r '.perSession[] | select(.subagent == null) | [.file, .bundles, (.missed // [] | length), (.partial // "" | length > 0)] | @tsv' "$work/sum.json" >"$work/written.tsv"
# Bundles whose compact history is empty.
empty=0
while IFS= read -r -d '' h; do
  [ -s "$h" ] || empty=$((empty + 1))
done < <(find "$work/out" -name compact-history.xml -print0 2>/dev/null)

echo "| Claude Code | files | compactions recorded | bundles written | missed (named) | files starting mid-session |"
echo "|---|---:|---:|---:|---:|---:|"
join -t $'\t' <(sort "$work/recorded.tsv") <(sort "$work/written.tsv") |
  awk -F'\t' '{ v=$2; files[v]++; rec[v]+=$3; got[v]+=$4; miss[v]+=$5; if ($6=="true") mid[v]++ }
    END { for (v in files) printf "%s\t%d\t%d\t%d\t%d\t%d\n", v, files[v], rec[v], got[v], miss[v], mid[v] }' |
  sort -t. -k1,1n -k2,2n -k3,3n >"$work/table.tsv"
awk -F'\t' '{ printf "| %s | %d | %d | %d | %d | %d |\n", $1, $2, $3, $4, $5, $6; f+=$2; r+=$3; g+=$4; m+=$5; p+=$6 }
  END { printf "| **all** | **%d** | **%d** | **%d** | **%d** | **%d** |\n", f, r, g, m, p }' "$work/table.tsv"
echo
echo "bundles with an empty compact history: $empty; warnings: $(wc -l <"$work/warnings")"
jq -r '.perSession[] | select((.missed // []) | length > 0) | .file as $f | .missed[] | "missed: \($f): compaction \(.compaction) (line \(.line)): \(.reason)"' "$work/sum.json"
