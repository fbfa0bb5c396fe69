#!/usr/bin/env bash
# Instructions per event of the limit workload (crates/sim/benches/fixtures/limit.json) under
# each policy, counted by valgrind's cachegrind: the same at every run, unlike a timing, so a
# change to the core can be judged on a machine whose speed varies (docs/speed.md).
#   bash scripts/instructions.sh [policy ...]     (default: all five)
# Needs valgrind (not part of setup.sh: apt-get install valgrind). The count is of
# `fairground run` as a whole, parse and report included; the report's share is small and the
# same before and after a change to the run.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
policies=("$@")
[ ${#policies[@]} -gt 0 ] || policies=(cfs-v6.2 latency-nice-v12 eevdf-v6.6 eevdf-v6.12 eevdf-v6.18)
cargo build -q --release -p fairground-cli
bin="${CARGO_TARGET_DIR:-target}/release/fairground"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-18s %10s %15s %10s\n' policy events instructions per-event
for p in "${policies[@]}"; do
  f="$tmp/limit-$p.json"
  sed "s/\"policy\": *\"[a-z0-9.-]*\"/\"policy\": \"$p\"/" crates/sim/benches/fixtures/limit.json > "$f"
  events=$("$bin" run "$f" | sed -n 's/.* \([0-9]*\) events$/\1/p')
  [ -n "$events" ] || { echo "instructions.sh: $p: no event count in the report" >&2; exit 1; }
  ir=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" run "$f" 2>&1 >/dev/null \
    | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d ,)
  printf '%-18s %10d %15d %10d\n' "$p" "$events" "$ir" $(( ir / events ))
done
