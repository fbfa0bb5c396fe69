#!/usr/bin/env bash
# Build the web app into dist/ with trunk (release, offline: trunk uses the tools that
# scripts/setup.sh installed and never downloads any). Run setup.sh first.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$REPO_ROOT"
command -v trunk >/dev/null || die "trunk not found: run bash scripts/setup.sh"
log "trunk build --release --offline"
start=$(date +%s)
trunk build --release --offline
end=$(date +%s)
[ -f dist/static/scenarios/index.json ] || die "dist/static/scenarios/index.json was not generated"
log "built in $((end - start)) s"
for wasm in dist/*.wasm; do
  [ -f "$wasm" ] && log "$(basename "$wasm"): $(wc -c <"$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped"
done
