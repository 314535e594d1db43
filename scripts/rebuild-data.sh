#!/usr/bin/env bash
# Regenerate the bundled data from the fixtures with the importer (lkpx):
#   scripts/rebuild-data.sh           replaces data/ with a fresh import
#   scripts/rebuild-data.sh OUT_DIR   imports into OUT_DIR instead (scripts/test.sh uses this to check that
#                                     data/ is fresh, so the output must be deterministic: no timestamps, no
#                                     absolute paths)
# This file is the one place that knows the import command line.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

import() {
  cargo run --release -p importer --bin lkpx -- import --out "$1" fixtures/seeds fixtures/corpus
}

if [ $# -ge 1 ]; then
  import "$1"
else
  # Import into a scratch dir first, then swap it in, so files the importer no longer writes disappear from data/.
  mkdir -p target
  tmp="$(mktemp -d "$ROOT/target/rebuild-data.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  import "$tmp/data"
  rm -rf data
  mv "$tmp/data" data
  echo "data/ rebuilt: $(find data -type f | wc -l) files"
fi
