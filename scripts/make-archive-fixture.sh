#!/usr/bin/env bash
# Cuts fixtures/archives/pm-iouring-small.bundle from the real slice ../shared/archives/pm-iouring-slice.bundle:
# a public-inbox v2 epoch of every report, every reply, the two patches that name a report (Fixes: its
# commit; Closes: it), the 2020 thread, both duplicate Message-IDs and every 20th other mail, in their
# original order; each commit keeps its mail blob, author, committer and message byte for byte. Run from the repository root; needs git.
set -euo pipefail
src=${1:-../shared/archives/pm-iouring-slice.bundle}
out=fixtures/archives/pm-iouring-small.bundle
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q --mirror "$src" "$tmp/src.git"
git -C "$tmp/src.git" rev-list --reverse master > "$tmp/revs"
keep=" 71 89 124 125 133 198 502 509 521 527 716 797 798 799 801 802 832 1063 1394 1615 1696 1894 1914 2203 2424 2634 2635 2636 2645 2736 2847 2927 "
git init -q --bare "$tmp/new.git"
n=0
{
  while read -r c; do
    n=$((n + 1))
    if [[ $keep != *" $n "* ]] && (( n % 20 != 0 )); then continue; fi
    raw=$(git -C "$tmp/src.git" cat-file commit "$c")
    author=$(printf '%s\n' "$raw" | sed -n 's/^author //p' | head -1)
    committer=$(printf '%s\n' "$raw" | sed -n 's/^committer //p' | head -1)
    msg=$(printf '%s\n' "$raw" | sed '1,/^$/d')
    size=$(git -C "$tmp/src.git" cat-file -s "$c:m")
    echo "blob"
    echo "data $size"
    git -C "$tmp/src.git" cat-file blob "$c:m"
    echo
    echo "commit refs/heads/master"
    echo "author $author"
    echo "committer $committer"
    echo "data $(printf '%s\n' "$msg" | wc -c)"
    printf '%s\n' "$msg"
    echo "M 100644 :0 m" | sed "s/:0/$(git -C "$tmp/src.git" rev-parse "$c:m")/"
    echo
    echo "# $n" >&2
  done < "$tmp/revs"
} 2> "$tmp/numbers" | git -C "$tmp/new.git" fast-import --quiet --date-format=raw-permissive
git -C "$tmp/new.git" bundle create "$PWD/$out" master
sed 's/^# //' "$tmp/numbers" | paste -sd' ' > "$tmp/kept"
echo "kept $(wc -w < "$tmp/kept") commits: numbers $(head -c 200 "$tmp/kept")..."
