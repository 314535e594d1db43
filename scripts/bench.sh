#!/usr/bin/env bash
# Scale and speed benchmarks (issue 5). Prints one markdown table at the end.
#
#   scripts/bench.sh                     everything: importer, result roots, browser at every size
#   SIZES="large redraw" scripts/bench.sh    only these synthetic sizes in the browser
#
# 1. builds lkpx (release) and, when dist/ is missing or older than the app's sources, the site
#    (`trunk build --release`; BENCH_DIST=DIR uses/builds another shell dir instead of dist/);
# 2. generates `lkpx synth --size S` into target/bench/S/data (kept; FRESH=1 regenerates);
# 3. assembles target/bench/site-S: the shell of the build (dist/ minus data/) plus the synthetic data
#    as data/, hard-linked (`cp -al`: e2e/harness.mjs serve() refuses symlinks leaving the site);
# 4. importer: `cargo bench -p importer --bench throughput` (MB/s on the bundled reports) and
#    `lkpx import` of ROOTS synthetic lkp-tests result roots (result roots per second);
# 5. browser: `node e2e/bench-scale.mjs S target/bench/site-S` per size (see that file for what is
#    measured), then one table of all sizes.
# Environment: SIZES (default "small medium large redraw"), ROOTS (default 2000), RUNS, CHANGES
# (passed to bench-scale.mjs), SKIP_IMPORTER=1 (browser part only).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/env.sh
. scripts/env.sh

SIZES="${SIZES:-small medium large redraw}"
ROOTS="${ROOTS:-2000}"
BENCH="$ROOT/target/bench"
DIST="${BENCH_DIST:-dist}"
LKPX="$ROOT/target/release/lkpx"
mkdir -p "$BENCH"

step() { printf '\n== %s\n' "$*" >&2; }

step "lkpx (release)"
cargo build --release -p importer --bin lkpx

step "site shell: $DIST"
stale=""
if [ -f "$DIST/index.html" ]; then
  stale="$(find app/src app/Cargo.toml model/src style index.html Trunk.toml Cargo.lock -newer "$DIST/index.html" -print -quit)"
fi
if [ ! -f "$DIST/index.html" ] || [ -n "$stale" ]; then
  echo "building $DIST (${stale:+stale: $stale}${stale:-missing})" >&2
  trunk build --release --dist "$DIST"
else
  echo "reusing $DIST (newer than the app's sources)" >&2
fi

for size in $SIZES; do
  if [ "${FRESH:-}" = 1 ] || [ ! -f "$BENCH/$size/data/index.json" ]; then
    step "lkpx synth --size $size"
    rm -rf "$BENCH/$size"
    "$LKPX" synth --size "$size" --out "$BENCH/$size/data"
  fi
  site="$BENCH/site-$size"
  rm -rf "$site"
  mkdir -p "$site"
  for f in "$DIST"/*; do
    [ "$(basename "$f")" = data ] || cp -a "$f" "$site/"
  done
  cp -al "$BENCH/$size/data" "$site/data"
done

importer_rows=()
if [ "${SKIP_IMPORTER:-}" != 1 ]; then
  step "importer throughput (cargo bench -p importer --bench throughput)"
  cargo bench -p importer --bench throughput 2>/dev/null | tee "$BENCH/throughput.txt"
  # "| parse (MIME + tables) | 12.3 ms | 40.1 MB/s |" -> "| importer: parse (MIME + tables) | 40.1 MB/s (12.3 ms per round) |"
  while IFS= read -r line; do
    importer_rows+=("$line")
  done < <(awk -F' *[|] *' '/MB\/s/ { printf "| importer on the bundled reports: %s | %s (%s per round) |\n", $2, $4, $3 }' "$BENCH/throughput.txt")

  step "lkpx import of $ROOTS synthetic result roots"
  if [ ! -f "$BENCH/roots-$ROOTS/.done" ]; then
    rm -rf "$BENCH/roots-$ROOTS" "$BENCH/roots-$ROOTS-synth"
    "$LKPX" synth --size small --out "$BENCH/roots-$ROOTS-synth" --result-roots "$ROOTS" --roots-out "$BENCH/roots-$ROOTS"
    touch "$BENCH/roots-$ROOTS/.done"
  fi
  rm -rf "$BENCH/roots-import"
  t0=$(date +%s.%N)
  "$LKPX" import --out "$BENCH/roots-import" "$BENCH/roots-$ROOTS" >"$BENCH/roots-import.log" 2>&1
  t1=$(date +%s.%N)
  rate="$(awk -v n="$ROOTS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f result roots/s (%d in %.2f s)", n / (b - a), n, b - a }')"
  echo "$rate"
  tail -n 3 "$BENCH/roots-import.log" >&2
  importer_rows+=("| importer: lkpx import of synthetic result roots | ${rate} |")
fi

jsons=()
for size in $SIZES; do
  step "browser: $size"
  node e2e/bench-scale.mjs "$size" "$BENCH/site-$size" --json "$BENCH/result-$size.json"
  jsons+=("$BENCH/result-$size.json")
done

step "summary"
node e2e/bench-scale.mjs --summary "${jsons[@]}"
if [ ${#importer_rows[@]} -gt 0 ]; then
  printf '\n| importer | |\n|---|---|\n'
  printf '%s\n' "${importer_rows[@]}"
fi
