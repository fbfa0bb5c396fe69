# Sourced by the other scripts: PATH for cargo-installed tools and the repo's npm tools.
# shellcheck shell=bash
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
if [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
case ":$PATH:" in *":$HOME/.cargo/bin:"*) ;; *) PATH="$HOME/.cargo/bin:$PATH" ;; esac
case ":$PATH:" in *":$REPO_ROOT/node_modules/.bin:"*) ;; *) PATH="$REPO_ROOT/node_modules/.bin:$PATH" ;; esac
export PATH

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The exact version of the `wasm-bindgen` crate in Cargo.lock; wasm-bindgen-cli must match it.
wasm_bindgen_version() {
  awk '/^\[\[package\]\]/ { name = "" }
       /^name = "wasm-bindgen"$/ { name = "wasm-bindgen" }
       name == "wasm-bindgen" && /^version = / { gsub(/"/, "", $3); print $3; exit }' "$REPO_ROOT/Cargo.lock"
}
