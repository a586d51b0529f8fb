#!/bin/sh
# Install Debian's Stockfish (the alternative engine, and the benchmarks' and some tests' opponent)
# only when it is missing. Idempotent: with /usr/games/stockfish present it does nothing.
set -eu
STOCKFISH=/usr/games/stockfish
if [ -x "$STOCKFISH" ] || command -v stockfish >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "ensure-stockfish: stockfish is missing; run as root: apt-get install -y stockfish" >&2
        exit 1
    fi
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends stockfish >/dev/null
test -x "$STOCKFISH"
echo "ensure-stockfish: installed $STOCKFISH"
