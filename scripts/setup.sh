#!/usr/bin/env bash
# Install whatever the build and the tests need and is missing; skip what is already there.
#
#   Debian chromium + chromium-driver   (apt; /usr/bin/chromium, /usr/bin/chromedriver)
#   rustfmt, clippy, wasm32-unknown-unknown target   (rustup)
#   trunk 0.21.14, wasm-bindgen-cli 0.2.130          (cargo install, from crates.io)
#   wasm-split-cli (wasm_split_cli_support 0.2.4)    (cargo install; splits the release app, scripts/build-app.sh)
#   e2e/node_modules: binaryen 132 (wasm-opt), terser (the release app's JS), playwright-core   (npm ci)
#
# Nothing is downloaded from anywhere but apt, crates.io and npm: trunk runs offline (Trunk.toml) and
# finds its tools on the PATH that scripts/env.sh sets. Safe to run again: a second run only does `npm ci`.
# On a machine with only Rust, the first run takes about 13 minutes (mostly compiling trunk; 760 s measured).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
WASM_OPT_VERSION=version_132
WASM_SPLIT_VERSION=0.2.4

STEP="start"
START=$SECONDS
say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then printf '[setup] FAILED (exit %s) during: %s\n' "$rc" "$STEP" >&2; fi
}
trap on_exit EXIT

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root for: $*  (not root and no sudo)"
  fi
}

# Prints the first line of `<tool> --version`, or nothing when the tool is absent or broken.
tool_version() {
  command -v "$1" >/dev/null 2>&1 || return 0
  "$1" --version 2>/dev/null | head -n 1 || true
}

apt_install() {
  say "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "$@"
}

# --- browser ------------------------------------------------------------------------------------------
STEP="chromium (apt)"
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  say "ok: $(/usr/bin/chromium --version 2>/dev/null | head -n 1), $(/usr/bin/chromedriver --version 2>/dev/null | cut -d' ' -f1-2)"
else
  command -v apt-get >/dev/null 2>&1 || die "/usr/bin/chromium or /usr/bin/chromedriver missing and no apt-get to install them"
  apt_install chromium chromium-driver
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then die "apt installed chromium but /usr/bin/chromium or /usr/bin/chromedriver is still missing"; fi
fi
if [ -x /usr/bin/wasm-opt ] && [ "$(/usr/bin/wasm-opt --version 2>/dev/null | grep -o 'version_[0-9]*' || true)" != "$WASM_OPT_VERSION" ]; then
  say "note: /usr/bin/wasm-opt ($(/usr/bin/wasm-opt --version | head -n 1)) is present; it is NOT used (e2e/node_modules/.bin comes first on PATH). Do not install Debian's binaryen."
fi

# --- node / npm -----------------------------------------------------------------------------------------
STEP="node/npm"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  say "node/npm not found: installing Debian's nodejs and npm"
  apt_install nodejs npm
fi
# playwright-core 1.65 needs Node >= 20 (and `node --test --test-concurrency` 20.10+). Machines of this
# kind come with Node 20; Debian 12's own nodejs package is 18, too old, and npm only warns about it.
node_major="$(node --version | sed -E 's/^v([0-9]+).*/\1/')"
if [ "${node_major:-0}" -lt 20 ]; then
  die "node $(node --version) is too old: the browser tests need Node.js 20 or newer (playwright-core 1.65); install Node 20+ and re-run"
fi
say "ok: node $(node --version), npm $(npm --version)"

# --- rust toolchain pieces ------------------------------------------------------------------------------
STEP="rustup components and wasm32 target"
command -v cargo >/dev/null 2>&1 || die "cargo not found (expected the machine's rustup toolchain in \$HOME/.cargo/bin)"
command -v rustup >/dev/null 2>&1 || die "rustup not found: it is needed to add the wasm32-unknown-unknown target"
say "ok: $(rustc --version)"
for comp in rustfmt clippy; do
  if rustup component list --installed 2>/dev/null | grep -q "^$comp"; then
    say "ok: component $comp"
  else
    say "rustup component add $comp"
    rustup component add "$comp"
  fi
done
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "ok: target wasm32-unknown-unknown"
else
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# --- wasm-bindgen version must match Cargo.lock ---------------------------------------------------------
STEP="wasm-bindgen version check"
lock_wb="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock 2>/dev/null || true)"
if [ -n "$lock_wb" ] && [ "$lock_wb" != "$WASM_BINDGEN_VERSION" ]; then
  die "Cargo.lock has wasm-bindgen $lock_wb but the toolchain is pinned to $WASM_BINDGEN_VERSION: pin wasm-bindgen = \"=$WASM_BINDGEN_VERSION\" in app/Cargo.toml (or bump WASM_BINDGEN_VERSION here and [tools] in Trunk.toml together)"
fi

# --- trunk ----------------------------------------------------------------------------------------------
STEP="cargo install trunk $TRUNK_VERSION"
have="$(tool_version trunk)"
if [ "$have" = "trunk $TRUNK_VERSION" ]; then
  say "ok: $have"
else
  say "cargo install trunk --locked --version $TRUNK_VERSION   (found: ${have:-none}; takes 8 to 10 min on 2 cores)"
  t=$SECONDS
  cargo install trunk --locked --version "$TRUNK_VERSION" --force
  hash -r
  have="$(tool_version trunk)"
  [ "$have" = "trunk $TRUNK_VERSION" ] || die "after install, 'trunk --version' says '${have:-nothing}' (want trunk $TRUNK_VERSION; is another trunk earlier on PATH? $(command -v trunk || true))"
  say "installed $have in $((SECONDS - t)) s"
fi

# --- wasm-bindgen-cli -----------------------------------------------------------------------------------
STEP="cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
have="$(tool_version wasm-bindgen)"
have_runner="$(tool_version wasm-bindgen-test-runner)"
if [ "$have" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] && [ -n "$have_runner" ]; then
  say "ok: $have (+ wasm-bindgen-test-runner)"
else
  # Not --locked: its lock file names patch releases this registry mirror lacks (docs/toolchain pitfall 2).
  say "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION   (found: ${have:-none}; takes about 3 min)"
  t=$SECONDS
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
  hash -r
  have="$(tool_version wasm-bindgen)"
  [ "$have" = "wasm-bindgen $WASM_BINDGEN_VERSION" ] || die "after install, 'wasm-bindgen --version' says '${have:-nothing}' (want $WASM_BINDGEN_VERSION; $(command -v wasm-bindgen || true))"
  say "installed $have in $((SECONDS - t)) s"
fi

# --- wasm-split-cli -------------------------------------------------------------------------------------
# Matches the wasm_split_helpers that leptos' #[lazy] uses (Cargo.lock); it has no --version, so the
# installed crate version is read from cargo's own record of installs.
STEP="cargo install wasm_split_cli_support $WASM_SPLIT_VERSION"
if command -v wasm-split-cli >/dev/null 2>&1 && cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  say "ok: wasm-split-cli (wasm_split_cli_support $WASM_SPLIT_VERSION)"
else
  say "cargo install wasm_split_cli_support --locked --version $WASM_SPLIT_VERSION --features build-binary   (takes about 3 min)"
  t=$SECONDS
  cargo install wasm_split_cli_support --locked --version "$WASM_SPLIT_VERSION" --features build-binary --force
  hash -r
  command -v wasm-split-cli >/dev/null 2>&1 || die "after install, wasm-split-cli is not on PATH"
  say "installed wasm-split-cli in $((SECONDS - t)) s"
fi

# --- npm packages (wasm-opt, playwright-core) -----------------------------------------------------------
STEP="npm packages in e2e/"
[ -f e2e/package.json ] || die "e2e/package.json missing"
if [ -f e2e/package-lock.json ]; then
  say "npm ci (e2e/)"
  (cd e2e && npm ci --no-audit --no-fund --no-update-notifier)
else
  say "npm install (e2e/; no package-lock.json yet)"
  (cd e2e && npm install --no-audit --no-fund --no-update-notifier)
fi

STEP="wasm-opt check"
hash -r
[ -x e2e/node_modules/.bin/wasm-opt ] || die "e2e/node_modules/.bin/wasm-opt missing after npm ci (binaryen devDependency?)"
wo="$(e2e/node_modules/.bin/wasm-opt --version 2>&1 | head -n 1 || true)"
case "$wo" in
  *"($WASM_OPT_VERSION)"*) say "ok: $wo" ;;
  *) die "e2e/node_modules/.bin/wasm-opt --version says '$wo', want $WASM_OPT_VERSION (npm binaryen@132.0.0)" ;;
esac
[ "$(command -v wasm-opt)" = "$ROOT/e2e/node_modules/.bin/wasm-opt" ] || die "wasm-opt on PATH is $(command -v wasm-opt), not e2e/node_modules/.bin/wasm-opt"

STEP="done"
say "all tools present ($((SECONDS - START)) s). For a shell: . scripts/env.sh"
