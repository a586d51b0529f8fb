#!/bin/sh
# Install Debian's Stockfish (the alternative engine, and the benchmarks' and some tests' opponent)
# only when it is missing. Idempotent: with /usr/games/stockfish present it does nothing.
set -eu
STOCKFISH=/usr/games/stockfish
if [ -x "$STOCKFISH" ] || command -v stockfish >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" ensure-stockfish stockfish
test -x "$STOCKFISH"
echo "ensure-stockfish: installed $STOCKFISH"
