#!/usr/bin/env bash
# The first load's size budget: each wasm file of the built site, gzipped (gzip -9, as
# scripts/build.sh prints them), against its budget. Exits 1, naming the file, if one is over;
# scripts/test.sh runs it after the build.   bash scripts/wasm-budget.sh [dist]
# The budgets are what the build reached plus a few per cent: at the re-layout the page was
# 352 508 and the worker 248 755 bytes; the core's costs, runaway guards, hashed validation
# and streaming export then took the worker to 268 119, and saved work the page to 360 985;
# "Which change did it?" (the ablation in the worker, its panel on the page) to 285 256 and
# 368 743. The import worker (rt-app files for Open file…) is a bundle of its own, fetched only
# when such a file is opened, so that no importer weighs on the first load: 143 677 at its
# start; the page grew to 375 814 with it (the file's shape told apart, the warnings listed).
# The decision log's whole-run clamp counts and previous/next, its what-if and source lines,
# and the sweep's LKML copy took the page to 383 826; the ftrace reader (which now shares its
# code with the Perfetto and trace.dat readers) moved from the worker into the import bundle,
# taking it to 159 999 and the worker back to 288 132. The fifth policy (eevdf-v6.18 and the
# preemption model) and the decision log's pick notes and counterfactuals under ticks and EEVDF
# checks then took the worker to 297 968. Teaching's second pass took the page to 395 324
# (the lesson column, "Try it" with its before/after table and undo, hints, the answer-key
# form) and the worker to 309 860 (exercise cards and worked solutions computed from the
# run, the answer key, "Try it" scenarios made and checked); the start page (lesson cards,
# the one-click A/B, the grouped picker) then took the page to 399 838, and eevdf-v6.18's
# stable fixes up to 6.18.44 the worker to 311 620.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$REPO_ROOT"
dist="${1:-dist}"
over=0
check() { # name, glob, budget
  local files=("$dist"/$2)
  if [ ${#files[@]} != 1 ] || [ ! -f "${files[0]}" ]; then
    echo "wasm budget: expected one $1 wasm file ($2) in $dist/" >&2
    over=1
    return
  fi
  local raw gz
  raw=$(wc -c <"${files[0]}")
  gz=$(gzip -9c "${files[0]}" | wc -c)
  if [ "$gz" -le "$3" ]; then
    log "wasm budget: $1 $(basename "${files[0]}"): $raw bytes, $gz gzipped, within $3"
  else
    echo "wasm budget: $1 $(basename "${files[0]}"): $gz bytes gzipped, OVER its budget of $3" >&2
    over=1
  fi
}
check page 'fairground-app-*_bg.wasm' 404000
check worker 'fairground-worker_bg.wasm' 314000
check import 'fairground-import_bg.wasm' 168000
exit "$over"
