#!/usr/bin/env bash
# Pagefind side of issue 33 over one dataset: install Pagefind, build its bundle, measure its queries.
# Usage: bench/pagefind/run.sh [DATA_DIR] [CASES.json] [PORT]
#   defaults: /tmp/syn10k/data (an `lkpx import --out` folder), /tmp/s10k/cases.json, 8896
# Scratch (npm install, site, nginx conf and logs, measure.json) in $WORK, default /tmp/pagefind-bench.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export WORK=${WORK:-/tmp/pagefind-bench}
data=${1:-/tmp/syn10k/data}
cases=${2:-/tmp/s10k/cases.json}
port=${3:-8896}
mkdir -p "$WORK"
[ -f "$WORK/package.json" ] || (cd "$WORK" && npm init -y >/dev/null)
(cd "$WORK" && npm install --no-audit --no-fund "pagefind@${PAGEFIND_VERSION:-1.6.0}")
/usr/bin/time -f '%e s wall (whole node process), %M KB max RSS' node "$here/build.mjs" "$data" "$WORK/site"
NODE_PATH=${NODE_PATH:-$root/e2e/node_modules} node "$here/measure.mjs" "$WORK/site" "$cases" "$port"
