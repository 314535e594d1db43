# shellcheck shell=bash
# Source this file (". scripts/env.sh") to get the project's tool PATH:
#   1. e2e/node_modules/.bin  first: the npm binaryen 132 wasm-opt must win over any other wasm-opt
#                             (Debian's binaryen 108 silently breaks the bundle; see docs/toolchain).
#   2. $HOME/.cargo/bin       trunk 0.21.14, wasm-bindgen / wasm-bindgen-test-runner 0.2.130, cargo.
# It only changes PATH and defines LKPX_ROOT; it installs nothing (scripts/setup.sh does).
_lkpx_src="${BASH_SOURCE[0]:-$0}"
case "$_lkpx_src" in */*) _lkpx_src="${_lkpx_src%/*}" ;; *) _lkpx_src=. ;; esac
LKPX_ROOT="$(cd "$_lkpx_src/.." && pwd)"
unset _lkpx_src
export LKPX_ROOT
_lkpx_path_prepend() {
  case ":$PATH:" in
    *":$1:"*) PATH=":$PATH:"; PATH="${PATH//:$1:/:}"; PATH="${PATH#:}"; PATH="${PATH%:}" ;;
  esac
  PATH="$1${PATH:+:$PATH}"
}
_lkpx_path_prepend "${CARGO_HOME:-$HOME/.cargo}/bin"
_lkpx_path_prepend "$LKPX_ROOT/e2e/node_modules/.bin"
unset -f _lkpx_path_prepend
export PATH
