#!/usr/bin/env bash
# Install what building and testing Fairground needs, skipping whatever is already there at the
# right version. Safe to run again. Works as root on a fresh Debian 12 with Rust (rustup) and
# Node 20, using only the crates.io, npm and Debian registries:
#   - rustup target wasm32-unknown-unknown
#   - trunk ~0.21            (cargo install; 0.22 needs a newer rustc)
#   - wasm-bindgen-cli       (cargo install, exactly the wasm-bindgen version in Cargo.lock)
#   - binaryen@132 (wasm-opt) and playwright-core, from package.json into ./node_modules
#   - chromium + chromium-driver (Debian), for the headless-browser tests
# Set FAIRGROUND_SKIP_BROWSER=1 to skip chromium (serving the app does not need it).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$REPO_ROOT"

command -v cargo >/dev/null || die "cargo not found: install Rust (rustup) first"
command -v node >/dev/null || die "node not found: install Node.js 20 first"
command -v npm >/dev/null || die "npm not found: install npm first"

# 1. The wasm target.
if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  log "wasm32-unknown-unknown target: present"
else
  command -v rustup >/dev/null || die "rustup not found: cannot add the wasm32-unknown-unknown target"
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# 2. trunk 0.21.x.
if command -v trunk >/dev/null && trunk --version 2>/dev/null | grep -Eq '^trunk 0\.21\.'; then
  log "trunk: $(trunk --version)"
else
  log "installing trunk ~0.21 (takes about 9 minutes on 2 cores)"
  cargo install trunk --version '~0.21' --locked
fi

# 3. wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in Cargo.lock.
WB_VERSION="$(wasm_bindgen_version)"
[ -n "$WB_VERSION" ] || die "no wasm-bindgen package in Cargo.lock"
if command -v wasm-bindgen >/dev/null && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WB_VERSION" ]; then
  log "wasm-bindgen-cli: $WB_VERSION"
else
  log "installing wasm-bindgen-cli $WB_VERSION (takes about 3 minutes)"
  # No --locked: the CLI's own lockfile pins a webpki-roots release the registry lacks.
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --force
fi

# 4. The workspace's crates for every target (the app's wasm-only ones, e.g. plotters, too), so
# that the builds that follow need nothing more from the registry. Quick when already cached.
log "cargo fetch (the crates in Cargo.lock)"
cargo fetch --locked

# 5. npm tools, into ./node_modules.
npm_ok() {
  [ -x node_modules/.bin/wasm-opt ] && [ -f node_modules/playwright-core/package.json ] \
    && [ -f node_modules/.package-lock.json ] && ! [ package-lock.json -nt node_modules/.package-lock.json ] \
    && node_modules/.bin/wasm-opt --version 2>/dev/null | grep -q 'version 132'
}
if npm_ok; then
  log "npm packages: present"
else
  log "installing npm packages (binaryen@132, playwright-core)"
  if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
  else
    npm install --no-audit --no-fund
  fi
fi

# 6. Chromium for the end-to-end tests.
if [ "${FAIRGROUND_SKIP_BROWSER:-0}" = 1 ]; then
  log "chromium: skipped (FAIRGROUND_SKIP_BROWSER=1)"
elif [ -x /usr/bin/chromium ]; then
  log "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
else
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "chromium is missing and installing it needs root: apt-get install chromium chromium-driver"
    SUDO="sudo"
  fi
  log "installing chromium and chromium-driver (Debian)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium chromium-driver
fi

log "setup complete"
