#!/bin/sh
# Install Debian's Fairy-Stockfish (the xiangqi perft reference and sparring partner)
# only when it is missing. Idempotent: with /usr/games/fairy-stockfish present it does nothing.
set -eu
STOCKFISH=/usr/games/fairy-stockfish
if [ -x "$STOCKFISH" ] || command -v fairy-stockfish >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "ensure-fairy-stockfish: fairy-stockfish is missing; run as root: apt-get install -y fairy-stockfish" >&2
        exit 1
    fi
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends fairy-stockfish >/dev/null
test -x "$STOCKFISH"
echo "ensure-fairy-stockfish: installed $STOCKFISH"
