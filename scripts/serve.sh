#!/usr/bin/env bash
# Quick start: install what is missing, build the site (release) into dist/ and serve it on
# http://127.0.0.1:$PORT/ (PORT defaults to 8080). Stop with Ctrl-C.
# For live reload while editing the app use instead:  . scripts/env.sh && trunk serve --address 127.0.0.1
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PORT="${PORT:-8080}"

"$ROOT/scripts/setup.sh"
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"

echo "==> trunk build --release"
trunk build --release

echo
echo "==> serving $ROOT/dist at  http://127.0.0.1:$PORT/   (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory dist
