#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned below) against
# Wardrik, both ways:
#  - every client scenario against conformance/client.ts (Wardrik's mcpToolset);
#  - every server scenario (the suite's "all": the active ones and the pending ones) against
#    `wardrik serve --config conformance/wardrik.config.ts`, started here on a free port of
#    127.0.0.1 and stopped after.
# A scenario fails when any of its checks is a FAILURE or a WARNING (as the suite's own baseline
# check counts it). The outcome is compared with conformance/expected-failures.json (scenario →
# reason): this exits 1 on any failure not listed there, and on any listed scenario that passed.
#
# Needs Node.js 22 or later (the suite's), the repo's node_modules (npm ci); runs Wardrik from its
# TypeScript sources (tsx). The suite is installed into conformance/.tools (git-ignored), outside
# the repo's package.json. Results (each scenario's checks.json and output) go to
# conformance/.results (git-ignored), or to $CONFORMANCE_RESULTS.
#
#   conformance/run.sh                       # everything
#   conformance/run.sh client                # the client scenarios only (or: server)
#   CONFORMANCE_SCENARIOS='sse-retry tools-list' conformance/run.sh   # only these
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
here=$root/conformance
version=0.1.16
tools=$here/.tools
results=${CONFORMANCE_RESULTS:-$here/.results}
only=${1:-all}
case $only in all | client | server) ;; *)
  echo "usage: conformance/run.sh [all|client|server]" >&2
  exit 2
  ;;
esac

major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
  echo "The MCP conformance suite needs Node.js 22 or later; this is $(node --version)" >&2
  exit 2
fi

# The suite, pinned, into conformance/.tools unless it is there already.
suite_package=$tools/node_modules/@modelcontextprotocol/conformance
if [ "$(node -p "require('$suite_package/package.json').version" 2>/dev/null || true)" != "$version" ]; then
  echo "Installing @modelcontextprotocol/conformance@$version into ${tools#"$root"/}"
  rm -rf "$tools"
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$version" >/dev/null
fi
suite=$tools/node_modules/.bin/conformance

# Wardrik from its sources, as the repo's demo runs it.
wardrik_node=(node --conditions=@wardrik/source --import tsx)

rm -rf "$results"
mkdir -p "$results"
started_at=$SECONDS

# The scenarios the suite has, one per line: client or server.
scenarios() {
  "$suite" list "--$1" | sed -n 's/^  - \([^ ]*\).*/\1/p' |
    if [ -n "${CONFORMANCE_SCENARIOS:-}" ]; then grep -xF -f <(tr ' ' '\n' <<<"$CONFORMANCE_SCENARIOS") || true; else cat; fi
}

# One scenario, its results in $results/MODE/NAME (NAME with / as __); its output in output.txt.
run_scenario() {
  local mode=$1 scenario=$2
  shift 2
  local folder=$results/$mode/${scenario//\//__}
  mkdir -p "$folder"
  "$suite" "$mode" --scenario "$scenario" -o "$folder" "$@" >"$folder/output.txt" 2>&1 || true
  local checks
  checks=$(find "$folder" -name checks.json | head -n 1)
  if [ -n "$checks" ]; then mv "$checks" "$folder/checks.json"; fi
}

# --- Client scenarios: the suite serves, conformance/client.ts (mcpToolset) calls ---------------
if [ "$only" != server ]; then
  echo "=== Client scenarios (conformance/client.ts: mcpToolset) ==="
  client_command="${wardrik_node[*]} $here/client.ts"
  while read -r scenario; do
    [ -n "$scenario" ] || continue
    run_scenario client "$scenario" --command "$client_command" --timeout 30000
    node "$here/outcome.mjs" line "$results/client/${scenario//\//__}/checks.json" "$scenario"
  done < <(scenarios client)
fi

# --- Server scenarios: wardrik serve, the suite calls ------------------------------------------
if [ "$only" != client ]; then
  echo "=== Server scenarios (wardrik serve --config conformance/wardrik.config.ts) ==="
  # A fresh store each time (conformance/.wardrik, git-ignored), with the principal that callers
  # without a token are taken as (mcp.unauthenticated in the config).
  rm -rf "$here/.wardrik"
  cli=("${wardrik_node[@]}" "$root/packages/wardrik/src/cli/main.ts")
  "${cli[@]}" tokens create --config "$here/wardrik.config.ts" --name conformance --role admin --json >/dev/null
  server_log=$results/server.log
  server_out=$results/server.json
  mkdir -p "$results/server"
  "${cli[@]}" serve --config "$here/wardrik.config.ts" --host 127.0.0.1 --port 0 --json --log-level warn \
    >"$server_out" 2>"$server_log" &
  server_pid=$!
  stop_server() {
    if kill -0 "$server_pid" 2>/dev/null; then
      kill -TERM "$server_pid" 2>/dev/null || true
      wait "$server_pid" 2>/dev/null || true
    fi
  }
  trap stop_server EXIT
  url=
  for _ in $(seq 1 600); do
    url=$(node -e 'try { const s = require("fs").readFileSync(process.argv[1], "utf8"); process.stdout.write(JSON.parse(s).url ?? "") } catch {}' "$server_out")
    [ -n "$url" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -z "$url" ]; then
    echo "wardrik serve did not start:" >&2
    cat "$server_log" >&2
    exit 1
  fi
  echo "wardrik serve at $url (pid $server_pid)"
  while read -r scenario; do
    [ -n "$scenario" ] || continue
    run_scenario server "$scenario" --url "$url/mcp"
    node "$here/outcome.mjs" line "$results/server/${scenario//\//__}/checks.json" "$scenario"
  done < <(scenarios server)
  stop_server
  trap - EXIT
fi

echo
echo "=== Summary (results in ${results#"$root"/}) ==="
if node "$here/outcome.mjs" summary "$results" "$here/expected-failures.json"; then status=0; else status=$?; fi
echo "conformance/run.sh took $((SECONDS - started_at)) s"
exit "$status"
