# Shared by the harness scripts (sourced, not run).
#
# ud_resolve sets, from UPSTREAM_REF (a commit or tag of stagewise-io/
# stagewise; UPSTREAM_REV is its older name; default e3e125281a27, the
# reference) and UPSTREAM_GIT or UPSTREAM_TREE:
#   UD_REV  the full commit (or "tree" for UPSTREAM_TREE)
#   UD_UP   $UD_WORK/up-<first 12 digits>: the scratch tree of that commit
# and, once setup.sh has run, reads $UD_UP/.ud-env:
#   UD_LAYOUT  browser-app (the apps/browser serializer, up to 1.4) or
#              agent-core (packages/agent-core, 1.5 on)
#   UD_HOSTS   the serializer hosts to run: app (browser-app), or none (the
#              script as shipped) and browser (the app's host, through the
#              shim) for agent-core
#   UD_TSCONFIG  the tsconfig tsx runs with
ud_resolve() {
  : "${UD_WORK:=${TMPDIR:-/tmp}/upstream-diff}"
  export UD_WORK
  local ref=${UPSTREAM_REF:-${UPSTREAM_REV:-e3e125281a271643edcd6e40fa74f15646a22873}}
  if [[ -n ${UPSTREAM_TREE:-} ]]; then
    UD_REV=tree
    UD_UP=$UD_WORK/up-tree
  elif [[ -n ${UPSTREAM_GIT:-} ]]; then
    UD_REV=$(git --git-dir="$UPSTREAM_GIT" rev-parse --verify "$ref^{commit}") || {
      echo "upstream-diff: $ref is not a commit of $UPSTREAM_GIT" >&2
      return 2
    }
    UD_UP=$UD_WORK/up-${UD_REV:0:12}
  else
    echo "upstream-diff: set UPSTREAM_GIT (git dir of stagewise-io/stagewise) or UPSTREAM_TREE (a tree of it)" >&2
    return 2
  fi
  export UD_REV UD_UP
  if [[ -f $UD_UP/.ud-env ]]; then
    # shellcheck disable=SC1091
    . "$UD_UP/.ud-env"
    export UD_LAYOUT UD_HOSTS UD_TSCONFIG UD_ORACLE
  fi
}

# ud_profile HOST: the compact profile compared with the upstream run
# with that host (PROFILE_APP, PROFILE_BROWSER, PROFILE_NONE override it).
ud_profile() {
  case $1 in
    app) echo "${PROFILE_APP:-e3e}" ;;
    browser) echo "${PROFILE_BROWSER:-head}" ;;
    none) echo "${PROFILE_NONE:-head-nohost}" ;;
    *) echo "ud_profile: unknown host $1" >&2; return 1 ;;
  esac
}

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

# ud_script MODE HOST: the upstream script variant (setup.sh made them).
ud_script() {
  echo "$UD_UP/scripts/experiments/extract-compression-test-data.$1.$2.ts"
}

# run_upstream MODE HOST CWD HOME LOCALE OUTPREFIX ARGS...: run the upstream
# script (MODE history: unchanged; messages: the agentMessages variant;
# HOST: app, none or browser, see UD_HOSTS) in CWD with HOME, writing
# OUTPREFIX.stdout, .stderr, .code.
run_upstream() {
  local mode=$1 host=$2 cwd=$3 home=$4 loc=$5 out=$6
  shift 6
  local code=0
  (cd "$cwd" && env -i PATH="$PATH" HOME="$home" LANG="$loc" LC_ALL="$loc" TZ=UTC \
    TMPDIR="${TMPDIR:-/tmp}" \
    timeout "${UD_TIMEOUT:-300}" "$UD_UP/node_modules/.bin/tsx" \
    --tsconfig "$UD_UP/$UD_TSCONFIG" "$(ud_script "$mode" "$host")" "$@") \
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

# ud_oracle: the function-level oracle command of the layout (run with
# UD_HOST=none|browser for agent-core).
ud_oracle() {
  echo "$UD_UP/node_modules/.bin/tsx" --tsconfig "$UD_UP/$UD_TSCONFIG" "$UD_UP/scripts/experiments/ud-oracle.ts"
}

# tokenize FILE HOME CWD SKILLS: replace the absolute paths by tokens.
tokenize() {
  local f=$1 home=$2 cwd=$3 skills=$4
  HOME_="$home" CWD_="$cwd" SKILLS_="$skills" perl -pe 's/\Q$ENV{SKILLS_}\E/\$SKILLS/g; s/\Q$ENV{HOME_}\E/\$HOME/g; s/\Q$ENV{CWD_}\E/\$CWD/g' "$f"
}
