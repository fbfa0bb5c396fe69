#!/usr/bin/env bash
# The one command that sets up and runs every test:
#   1. scripts/setup.sh (installs what is missing)
#   2. cargo test --workspace (unit, integration and doc tests)
#   3. trunk build --release of the web app, and the wasm files' size budget
#      (scripts/wasm-budget.sh)
#   4. a static server on 127.0.0.1 (a free port), and the headless-Chromium end-to-end tests
#      in tests/e2e/ against it; the server is stopped on exit.
# Exits non-zero if any step fails. The last line is the e2e summary, "N passed, N failed".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$REPO_ROOT"

failures=()
e2e_summary=""
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  [ -n "${SERVER_LOG:-}" ] && rm -f "$SERVER_LOG"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step_time() { echo "$(( $(date +%s) - $1 )) s"; }

t=$(date +%s)
bash scripts/setup.sh || { echo "setup failed" >&2; exit 1; }
log "setup: $(step_time "$t")"

t=$(date +%s)
log "cargo test --workspace"
if cargo test --workspace; then log "cargo test: ok ($(step_time "$t"))"; else failures+=("cargo test"); fi

t=$(date +%s)
if bash scripts/build.sh; then
  log "trunk build: ok ($(step_time "$t"))"
  bash scripts/wasm-budget.sh dist || failures+=("wasm size budget")
  SERVER_LOG="$(mktemp)"
  node scripts/static-server.mjs dist 0 >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  url=""
  for _ in $(seq 1 100); do   # at most 10 s
    url="$(sed -n 's/^listening on \(http:[^ ]*\)$/\1/p' "$SERVER_LOG")"
    [ -n "$url" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$url" ]; then
    cat "$SERVER_LOG" >&2
    failures+=("static server")
    e2e_summary="0 passed, 1 failed"
  else
    log "e2e tests against $url"
    out="$(mktemp)"
    BASE_URL="$url" timeout 900 node tests/e2e/run.mjs 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    e2e_summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n1)"
    rm -f "$out"
    [ -n "$e2e_summary" ] || e2e_summary="0 passed, 1 failed"
    [ "$rc" = 0 ] || failures+=("e2e tests")
  fi
else
  failures+=("trunk build")
  e2e_summary="0 passed, 1 failed"
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo "FAILED: ${failures[*]}" >&2
  echo "$e2e_summary"
  exit 1
fi
echo "all tests passed" >&2
echo "$e2e_summary"
