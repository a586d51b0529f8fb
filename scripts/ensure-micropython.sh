#!/bin/sh
# Install MicroPython's official WebAssembly port (npm @micropython/micropython-webassembly-pyscript)
# into build/micropython/ (ignored by git), for running the firmware's tests under real MicroPython
# (tests/firmware/test_micropython.py). Idempotent: with the pinned version present it does nothing.
# Needs Node.js (>= 18) and npm; installs them from Debian when missing and run as root.
set -eu
VERSION=1.27.0
PACKAGE=@micropython/micropython-webassembly-pyscript
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${MICROPYTHON_WASM_PREFIX:-$ROOT/build/micropython}
INSTALLED=$PREFIX/node_modules/$PACKAGE/package.json

if [ -f "$INSTALLED" ] && grep -q "\"version\": \"$VERSION\"" "$INSTALLED"; then
    exit 0
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    sh "$(dirname "$0")/apt-install.sh" ensure-micropython nodejs npm
fi
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-audit --no-fund --silent "$PACKAGE@$VERSION"
test -f "$PREFIX/node_modules/$PACKAGE/micropython.mjs"
echo "ensure-micropython: installed $PACKAGE@$VERSION in $PREFIX"
