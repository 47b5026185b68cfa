# Shared by run.sh and conformance.sh (sourced, not run).
# Needs UD_WORK set and setup.sh done.

# channel_base CHANNEL: the app directory name of a release channel.
channel_base() {
  case $1 in
    release) echo stagewise ;;
    prerelease) echo stagewise-prerelease ;;
    dev) echo stagewise-dev ;;
    nightly) echo stagewise-nightly ;;
    *) echo "channel_base: unknown channel $1" >&2; return 1 ;;
  esac
}

# place_db DB HOME DBCHANNEL: copy DB where the script looks for it.
place_db() {
  local d
  d=$2/.config/$(channel_base "$3")/stagewise/agents
  mkdir -p "$d"
  cp "$1" "$d/instances.sqlite"
}

# run_upstream MODE CWD HOME LOCALE OUTPREFIX ARGS...: run the upstream script
# (MODE history: unchanged; messages: the agentMessages variant) in CWD with
# HOME, writing OUTPREFIX.stdout, .stderr, .code.
run_upstream() {
  local mode=$1 cwd=$2 home=$3 loc=$4 out=$5
  shift 5
  local script=$UD_WORK/up/scripts/experiments/extract-compression-test-data.ts
  [[ $mode == messages ]] && script=$UD_WORK/up/scripts/experiments/extract-compression-test-data.messages.ts
  local code=0
  (cd "$cwd" && env -i PATH="$PATH" HOME="$home" LANG="$loc" LC_ALL="$loc" TZ=UTC \
    TMPDIR="${TMPDIR:-/tmp}" \
    timeout "${UD_TIMEOUT:-300}" "$UD_WORK/up/node_modules/.bin/tsx" \
    --tsconfig "$UD_WORK/up/apps/browser/tsconfig.backend.json" "$script" "$@") \
    >"$out.stdout" 2>"$out.stderr" || code=$?
  echo "$code" >"$out.code"
}

# run_compact BIN MODE CWD HOME LOCALE CHANNEL PACK OUTPREFIX ARGS...: run
# compact extract the same way, writing to CWD/experiments-data/history-compression/CHANNEL.
run_compact() {
  local bin=$1 mode=$2 cwd=$3 home=$4 loc=$5 channel=$6 pack=$7 out=$8
  shift 8
  local code=0
  (cd "$cwd" && env -i PATH="$PATH" HOME="$home" LANG="$loc" LC_ALL="$loc" TZ=UTC \
    timeout "${UD_TIMEOUT:-300}" "$bin" extract --source "$mode" --pack "$pack" -j 1 \
    --out "$cwd/experiments-data/history-compression/$channel" "$@") \
    >"$out.stdout" 2>"$out.stderr" || code=$?
  echo "$code" >"$out.code"
}

# tokenize FILE HOME CWD SKILLS: replace the absolute paths by tokens.
tokenize() {
  local f=$1 home=$2 cwd=$3 skills=$4
  HOME_="$home" CWD_="$cwd" SKILLS_="$skills" perl -pe 's/\Q$ENV{SKILLS_}\E/\$SKILLS/g; s/\Q$ENV{HOME_}\E/\$HOME/g; s/\Q$ENV{CWD_}\E/\$CWD/g' "$f"
}
