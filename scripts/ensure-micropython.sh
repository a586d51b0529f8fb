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
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            SUDO="sudo -n"
        else
            echo "ensure-micropython: node and npm are missing; run as root: apt-get install -y nodejs npm" >&2
            exit 1
        fi
    fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
mkdir -p "$PREFIX"
npm install --prefix "$PREFIX" --no-audit --no-fund --silent "$PACKAGE@$VERSION"
test -f "$PREFIX/node_modules/$PACKAGE/micropython.mjs"
echo "ensure-micropython: installed $PACKAGE@$VERSION in $PREFIX"
