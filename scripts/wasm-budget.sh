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
# checks then took the worker to 297 968. Recorded traces in the app (trace.dat and Perfetto
# protobuf read by the import worker, with each trace's own run measured; the Perfetto protobuf
# export in the worker for "Open in Perfetto"; the real run beside the model on the page) took
# the import bundle to 200 397 (the two binary readers, prost's decoding among them), the worker
# to 321 561 (the protobuf writer and the real/model comparison) and the page to 400 153 (from
# 389 372). Teaching's second pass, made beside them, took the page up by 12 KB (the lesson
# column, "Try it" with its before/after table and undo, hints, the answer-key form, the start
# page and the grouped picker) and the worker by 12 KB (exercise cards and worked solutions
# computed from the run, the answer key, "Try it" scenarios made and checked); with eevdf-v6.18's
# stable fixes up to 6.18.44, the two together came to 412 511 and 336 057
# (the import bundle, which parses lessons' "Try it" too, to 203 995). Drawing only the rows of
# a long tasks table near the viewport (page/rows.rs), which took a jump to the end of
# hackbench-8cpu from 157-188 ms to 90-113 ms, took the page from 414 741 to 418 136; keeping
# such a table's columns at the whole table's widths (a collapsed sizer row) and "Find a task"
# (the browser's find sees only the rows drawn) to 421 824.
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
check page 'fairground-app-*_bg.wasm' 424000
check worker 'fairground-worker_bg.wasm' 355000
check import 'fairground-import_bg.wasm' 212000
exit "$over"
