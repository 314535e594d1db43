#!/usr/bin/env bash
# Builds the page's app (app/, bin `app`) and links it into the page. trunk runs this as its
# post_build hook (Trunk.toml): index.html marks the app's rust link `data-trunk-skip`, because
# trunk's own pipeline cannot split a module. Release builds split it:
#
#   cargo build --features split     the split points of app/src/ui/split.rs (the tabs other than
#                                    Reports, the commit panel, the mail reader's worker side), and
#                                    the link keeps its relocations (app/build.rs)
#   wasm-split-cli                   app.wasm -> the first screen's module + one module per split point
#                                    (+ shared chunks) + __wasm_split.js, their loader
#   wasm-bindgen --keep-lld-exports  the JS glue of the first module (the tab modules import
#                                    what they share with it through __wasm_split.js)
#   wasm-opt -Oz                     every module
#   terser                           the glue and the loader (npm, e2e/node_modules)
#
# Debug builds (trunk serve, trunk build) skip the split: one module, plain wasm-bindgen.
# The files go to $TRUNK_STAGING_DIR/app-<hash>/ (the hash of their content, so a host may cache
# them for ever); the modules import each other by relative names, which therefore never change.
# boot.js (a stable name) starts the app; the root page gets the preloads. The dataset's static
# pages (m/, p/, its index.html) move to the site's root.
set -euo pipefail
: "${TRUNK_STAGING_DIR:?run by trunk as its post_build hook (see Trunk.toml)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PROFILE="${TRUNK_PROFILE:-debug}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM_OPT_FLAGS=(-Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals)

say() { printf '[build-app] %s\n' "$*"; }
die() { printf '[build-app] ERROR: %s\n' "$*" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/split" "$work/pkg"

build_release() {
  say "cargo build -p app --bin app --profile wasm-release --features split"
  cargo build -p app --bin app --target wasm32-unknown-unknown --profile wasm-release --features split
  local wasm="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/app.wasm"
  command -v wasm-split-cli >/dev/null || die "wasm-split-cli not found (scripts/setup.sh installs it; . scripts/env.sh)"
  say "wasm-split-cli"
  wasm-split-cli --target web --out-name app "$wasm" "$work/split"
  say "wasm-bindgen --keep-lld-exports"
  wasm-bindgen --target web --keep-lld-exports --no-typescript --out-name app --out-dir "$work/pkg" "$work/split/app.wasm"
  local f
  for f in "$work/split"/*; do
    [ "$(basename "$f")" = app.wasm ] || cp -r "$f" "$work/pkg/"
  done
  command -v terser >/dev/null || die "terser not found (e2e/node_modules/.bin: scripts/setup.sh runs npm ci; . scripts/env.sh)"
  for f in "$work/pkg"/*.js; do
    terser "$f" --module --compress --mangle -o "$f.min"
    mv "$f.min" "$f"
  done
  for f in "$work/pkg"/*.wasm; do
    # (wasm-split-cli writes a name subsection binaryen 132 does not know: it warns, then drops it)
    wasm-opt "${WASM_OPT_FLAGS[@]}" "$f" -o "$f.opt" 2> >(grep -v 'unknown name subsection' >&2)
    mv "$f.opt" "$f"
  done
}

build_debug() {
  say "cargo build -p app --bin app (debug, one module)"
  cargo build -p app --bin app --target wasm32-unknown-unknown
  wasm-bindgen --target web --no-typescript --out-name app --out-dir "$work/pkg" \
    "$TARGET_DIR/wasm32-unknown-unknown/debug/app.wasm"
}

# boot.js, at the site's root under a stable name: starts the app. Every page but the lists loads it (the
# static pages the importer writes name it; they cannot know the app's hash).
write_boot() {
  local dir="$1"
  # A static page inserts it once its content is painted (render/src/page.rs, START_APP); the bare
  # shell names it. After a frame, main.css (the app's whole style; a static page's inlined lines
  # are lines of it), then the app.
  cat > "$TRUNK_STAGING_DIR/boot.js" <<JS
await new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
if (!document.querySelector('link[rel="stylesheet"][href="main.css"]')) {
  const css = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: 'main.css' });
  await new Promise((done) => { css.onload = css.onerror = done; document.head.append(css); });
}
const bindings = await import('./$dir/app.js');
const wasm = await bindings.default({ module_or_path: new URL('./$dir/app_bg.wasm', import.meta.url) });
window.wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));
JS
}

# The dataset's static pages go to the site's root: every report's page (m/), the lists (p/) and
# the first screen (the data's index.html, pre-rendered, replaces the bare shell's).
place_pages() {
  local data="$TRUNK_STAGING_DIR/data" d
  for d in m p; do
    rm -rf "${TRUNK_STAGING_DIR:?}/$d"
    if [ -d "$data/$d" ]; then mv "$data/$d" "$TRUNK_STAGING_DIR/$d"; fi
  done
  if [ -f "$data/index.html" ]; then
    mv "$data/index.html" "$TRUNK_STAGING_DIR/index.html"
  fi
}

# Adds the preloads (the app, its module, the root of the data) to the root page, and the start
# script where the page has none. Relative URLs: the site works under any sub-path.
link_into_page() {
  local dir="$1" html="$TRUNK_STAGING_DIR/index.html"
  [ -f "$html" ] || die "$html missing"
  grep -q '</head>' "$html" && grep -q '</body>' "$html" || die "$html has no </head> or </body>"
  local head="<link rel=\"modulepreload\" href=\"$dir/app.js\"><link rel=\"preload\" href=\"$dir/app_bg.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>"
  grep -q 'href="data/index.json"' "$html" || head="$head<link rel=\"preload\" href=\"data/index.json\" as=\"fetch\" crossorigin=\"anonymous\">"
  local body=""
  grep -q "'boot.js'" "$html" || body='<script type="module" src="boot.js"></script>'
  # trunk leaves the skipped rust link in place: it goes, the app's own tags come in
  HEAD="$head" BODY="$body" perl -0pi -e 's{<link data-trunk rel="rust"[^>]*data-trunk-skip[^>]*>\n?}{}; s{</head>}{$ENV{HEAD}</head>}; s{</body>}{$ENV{BODY}</body>}' "$html"
}

case "$PROFILE" in
  release) build_release ;;
  *) build_debug ;;
esac
hash="$(cd "$work/pkg" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
dir="app-$hash"
rm -rf "${TRUNK_STAGING_DIR:?}/$dir"
mv "$work/pkg" "$TRUNK_STAGING_DIR/$dir"
write_boot "$dir"
place_pages
link_into_page "$dir"
say "$dir: $(cd "$TRUNK_STAGING_DIR/$dir" && ls | tr '\n' ' ')"
