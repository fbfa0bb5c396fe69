#!/usr/bin/env bash
# Set up, build and serve Fairground on http://127.0.0.1:${PORT:-8080}/ (the app opens the
# default scenario, #scenario=two-hogs, when the URL has no fragment). Ctrl-C stops it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$REPO_ROOT"
PORT="${PORT:-8080}"
FAIRGROUND_SKIP_BROWSER=1 bash scripts/setup.sh
bash scripts/build.sh
log "serving dist/ on http://127.0.0.1:$PORT/#scenario=two-hogs (Ctrl-C to stop)"
exec node scripts/static-server.mjs dist "$PORT"
