#!/usr/bin/env bash
# Every check, in the order CI runs them (.ci/run calls this):
#   setup (installs what is missing) · cargo fmt · clippy (native + wasm32) · the fuzz targets compile
#   · cargo test (native, whole workspace)
#   · data/ freshness · trunk release builds (dist/ at '/', dist-sub/ at '/x/y/') · wasm browser tests · e2e
# Works from a fresh clone on a machine with only Rust: about 25 min the first time (13 of them setup), ~12 min after that.
# SKIP_SETUP=1 skips scripts/setup.sh (when you know the tools are there).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

START=$SECONDS
SECTION=""
SECTION_START=$SECONDS
TIMINGS=()

end_section() {
  if [ -n "$SECTION" ]; then
    TIMINGS+=("$(printf '%5ds  %s' $((SECONDS - SECTION_START)) "$SECTION")")
  fi
}
section() {
  end_section
  SECTION="$1"
  SECTION_START=$SECONDS
  printf '\n==================== %s ====================\n' "$SECTION"
}
summary() {
  local rc=$?
  end_section
  printf '\n==================== summary ====================\n'
  printf '%s\n' "${TIMINGS[@]}"
  if [ $rc -eq 0 ]; then
    printf 'ALL CHECKS PASSED in %d s\n' $((SECONDS - START))
  else
    printf 'FAILED in section "%s" (exit %d) after %d s\n' "$SECTION" "$rc" $((SECONDS - START)) >&2
  fi
}
trap summary EXIT

section "setup"
if [ "${SKIP_SETUP:-}" = 1 ]; then
  echo "SKIP_SETUP=1: not running scripts/setup.sh"
else
  scripts/setup.sh
fi
# shellcheck source=scripts/env.sh
. scripts/env.sh

section "cargo fmt --check"
cargo fmt --all -- --check

section "clippy (native, all targets)"
cargo clippy --workspace --all-targets -- -D warnings

section "clippy (app and the mail worker, wasm32)"
cargo clippy -p app -p worker --target wasm32-unknown-unknown -- -D warnings
# the release build's split points (scripts/build-app.sh)
cargo clippy -p app --target wasm32-unknown-unknown --features split -- -D warnings

section "fuzz targets compile (fuzz/, not a workspace member; scripts/fuzz.sh runs them)"
CARGO_TARGET_DIR="$ROOT/target" cargo check --manifest-path fuzz/Cargo.toml --bins

section "cargo test (native, workspace)"
cargo test --workspace --no-fail-fast

section "data/ freshness"
data_tmp="$(mktemp -d)"
scripts/rebuild-data.sh "$data_tmp/data"
mkdir -p "$data_tmp/data" data
if ! diff -rq "$data_tmp/data" data; then
  diff -r "$data_tmp/data" data | head -n 40 | cut -c1-300 || true
  rm -rf "$data_tmp"
  echo "data/ is stale: run scripts/rebuild-data.sh (and commit data/)" >&2
  exit 1
fi
rm -rf "$data_tmp"
echo "data/ matches a fresh import"

section "trunk build --release (dist/)"
trunk build --release

section "trunk build --release --public-url /x/y/ (dist-sub/)"
trunk build --release --public-url /x/y/ --dist dist-sub

if compgen -G "app/tests/*.rs" >/dev/null; then
  section "wasm-bindgen browser tests (app, chromium)"
  # The runner is set here too (also in .cargo/config.toml), so this stage works from any shell.
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
    CHROMEDRIVER=/usr/bin/chromedriver \
    WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-60}" \
    cargo test -p app --target wasm32-unknown-unknown
fi

section "e2e (playwright-core + chromium against dist/ and dist-sub/)"
if ! compgen -G "e2e/*.test.mjs" >/dev/null; then
  echo "no e2e/*.test.mjs found: the end-to-end tests are missing" >&2
  exit 1
fi
(cd e2e && npm test)
