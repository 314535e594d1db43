#!/usr/bin/env bash
# Import of a list archive at scale: a synthetic public-inbox epoch of MESSAGES mails (default 10^5) of
# which about REPORTS (default 10^3) are robot reports: the real slice's 2,927 mails as they are, REPORTS-10
# mails of `lkpx synth --mails`, and copies of the slice's ordinary mail (new Message-IDs per copy).
# Prints, each the wall time of the command a user runs (reading and writing included) and its peak RSS:
#   full import · the same epoch imported at 99 % then --into with the last 1 % (and checked byte-identical
#   to the full import) · a re-run with nothing new · the non-report path alone on one core (an epoch of
#   ordinary mail only, taskset -c 0): MB/s of mail.
# Needs git (to build the test epochs only; lkpx reads them with gix). Run from the repository root.
#   SLICE=path/to/pm-iouring-slice.bundle MESSAGES=100000 REPORTS=1000 WORK=/tmp/lkpx-bench-archive
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MESSAGES=${MESSAGES:-100000}
REPORTS=${REPORTS:-1000}
WORK=${WORK:-/tmp/lkpx-bench-archive}
SLICE=${SLICE:-../shared/archives/pm-iouring-slice.bundle}
[ -f "$SLICE" ] || SLICE=fixtures/archives/pm-iouring-small.bundle

cargo build --release -q -p importer --bin lkpx
LKPX=$PWD/target/release/lkpx
rm -rf "$WORK"
mkdir -p "$WORK"

# measure LABEL CMD...: wall seconds and peak RSS of CMD, its stderr summary kept in $WORK/LABEL.err
measure() {
  local label=$1
  shift
  /usr/bin/time -f '%e %M' -o "$WORK/$label.time" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err" || {
    local rc=$?
    [ $rc -eq 2 ] || { cat "$WORK/$label.err" >&2; exit $rc; }
  }
  read -r wall rss <"$WORK/$label.time"
  printf '%-26s %8.2f s  %7.0f MB peak RSS   %s\n' "$label" "$wall" "$((rss / 1024))" \
    "$(grep -m1 -E 'messages' "$WORK/$label.err" | cut -c1-160)"
}

echo "== building the epochs ($MESSAGES messages, ~$REPORTS reports; slice $SLICE)"
git clone -q --mirror "$SLICE" "$WORK/slice.git"
"$LKPX" synth --mails $((REPORTS - 10)) --out "$WORK/synth" >/dev/null
git init -q --bare --initial-branch=master "$WORK/inbox.git"
python3 scripts/make-synthetic-inbox.py "$WORK/slice.git" "$WORK/synth" "$MESSAGES" 2>"$WORK/inbox.info" |
  git -C "$WORK/inbox.git" fast-import --quiet
git -C "$WORK/inbox.git" repack -adq  # as git gc packs a served mirror: window 10, depth 50
cat "$WORK/inbox.info"
git init -q --bare --initial-branch=master "$WORK/ordinary.git"
python3 scripts/make-synthetic-inbox.py "$WORK/slice.git" "$WORK/synth" "$MESSAGES" ordinary 2>"$WORK/ordinary.info" |
  git -C "$WORK/ordinary.git" fast-import --quiet
git -C "$WORK/ordinary.git" repack -adq
cat "$WORK/ordinary.info"
echo "pack sizes: inbox $(du -sh "$WORK/inbox.git" | cut -f1), ordinary $(du -sh "$WORK/ordinary.git" | cut -f1)"

echo "== import (2 cores)"
measure "full import" "$LKPX" import --out "$WORK/full" "$WORK/inbox.git"
tip=$(git -C "$WORK/inbox.git" rev-parse master)
mark=$(git -C "$WORK/inbox.git" rev-list --reverse master | sed -n "$((MESSAGES * 99 / 100))p")
git -C "$WORK/inbox.git" update-ref refs/heads/master "$mark"
measure "import of the first 99 %" "$LKPX" import --out "$WORK/inc" "$WORK/inbox.git"
git -C "$WORK/inbox.git" update-ref refs/heads/master "$tip"
measure "--into with the last 1 %" "$LKPX" import --into "$WORK/inc" "$WORK/inbox.git"
if diff -rq "$WORK/inc" "$WORK/full" >/dev/null; then
  echo "99 % then 1 %: byte-identical to the full import"
else
  echo "99 % then 1 % DIFFERS from the full import:" >&2
  diff -rq "$WORK/inc" "$WORK/full" | head >&2
  exit 1
fi
before=$(find "$WORK/inc" -type f -printf '%p %T@\n' | sort | md5sum)
measure "re-run, nothing new" "$LKPX" import --into "$WORK/inc" "$WORK/inbox.git"
after=$(find "$WORK/inc" -type f -printf '%p %T@\n' | sort | md5sum)
[ "$before" = "$after" ] && echo "re-run rewrote no file" || { echo "re-run rewrote files" >&2; exit 1; }
"$LKPX" reports "$WORK/full" >"$WORK/reports.jsonl"
echo "reports in the dataset: $(wc -l <"$WORK/reports.jsonl"); files $(find "$WORK/full" -type f | wc -l), $(du -sh "$WORK/full" | cut -f1)"

echo "== the non-report path on one core (taskset -c 0)"
bytes=$(sed -n 's/.* \([0-9]*\) bytes$/\1/p' "$WORK/ordinary.info")
measure "ordinary mail only" taskset -c 0 "$LKPX" import --out "$WORK/plain" "$WORK/ordinary.git"
read -r wall _ <"$WORK/ordinary mail only.time"
python3 -c "import sys; b, w = int(sys.argv[1]), float(sys.argv[2]); print(f'non-report path: {b / 1e6:.1f} MB of mail in {w:.2f} s = {b / 1e6 / w:.0f} MB/s, {int(sys.argv[3]) / w:,.0f} messages/s')" \
  "$bytes" "$wall" "$MESSAGES"
read -r wall _ <"$WORK/full import.time"
python3 -c "import sys; print(f'full import: {int(sys.argv[1]) / float(sys.argv[2]):,.0f} messages/s')" "$MESSAGES" "$wall"
