#!/usr/bin/env bash
# A fuzzing campaign on the importer's and the page's parsers (outside CI, which only checks that
# the targets compile): seeds each target's corpus from fixtures/, then runs each target for
# SECONDS (default 600) with libFuzzer and prints the executions per target from libFuzzer's own
# final stats (also in fuzz/TARGET.log).
#   scripts/fuzz.sh [SECONDS] [TARGET ...]     targets: mail report archive query dataset
# Built with debug assertions and overflow checks, without a sanitizer and without comparison
# tracing (safe Rust: a panic or an overflow is the bug to find; ASan and cmp tracing made the
# report target 10x slower): FUZZ_FLAGS="-s address" brings ASan back. Inputs up to 64 KB (mail,
# dataset), 32 KB (an archive blob), 16 KB (a report body: its parse costs ~2 ms per 64 KB even
# uninstrumented), 4 KB (a query string).
# Needs cargo-fuzz (`cargo install cargo-fuzz`); the stable toolchain runs it with RUSTC_BOOTSTRAP=1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECS="${1:-600}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(mail report archive query)

seed() {
  local c=fuzz/corpus
  set +o pipefail # head closes its pipe early
  mkdir -p "$c/mail" "$c/report" "$c/archive" "$c/query"
  # mails as sent (MIME, quoted-printable, base64, attachments), the replies, the web copies
  for f in fixtures/corpus/raw/*.eml fixtures/replies/*.eml fixtures/seeds/*.txt fixtures/corpus/*.txt; do
    head -c 65536 "$f" > "$c/mail/$(basename "$f")"
    cp "$c/mail/$(basename "$f")" "$c/archive/$(basename "$f")"
  done
  # decoded bodies: the .txt fixtures after their header lines
  for f in fixtures/corpus/*.txt fixtures/seeds/*.txt; do
    sed '1,/^$/d' "$f" | head -c 65536 > "$c/report/$(basename "$f")"
  done
  # the query strings the end-to-end tests open
  local n=0
  grep -ohE "\?[a-z.]+=[^'\"\` )]+" e2e/*.test.mjs | sort -u | while read -r q; do
    n=$((n + 1))
    printf '%s' "$q" > "$c/query/e2e-$n"
  done
  set -o pipefail
}

seed
for t in "${TARGETS[@]}"; do
  log="fuzz/$t.log"
  echo "== $t: ${SECS}s"
  case "$t" in
    report) max=16384 ;;
    archive) max=32768 ;;
    query) max=4096 ;;
    *) max=65536 ;;
  esac
  corpus="fuzz/corpus/$t"
  [ "$t" = dataset ] && corpus="fuzz/corpus/mail"
  # shellcheck disable=SC2086
  RUSTC_BOOTSTRAP=1 cargo fuzz run ${FUZZ_FLAGS:--s none --no-trace-compares -a} --fuzz-dir fuzz "$t" "$corpus" -- \
    -max_total_time="$SECS" -max_len="$max" -print_final_stats=1 >"$log" 2>&1 || { tail -n 40 "$log"; exit 1; }
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  echo "$t: $runs executions in ${SECS}s ($((runs / SECS))/s), inputs up to $max bytes"
done
