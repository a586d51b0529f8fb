#!/bin/sh
# Install Debian's Fairy-Stockfish (the xiangqi perft reference and sparring partner)
# only when it is missing. Idempotent: with /usr/games/fairy-stockfish present it does nothing.
set -eu
STOCKFISH=/usr/games/fairy-stockfish
if [ -x "$STOCKFISH" ] || command -v fairy-stockfish >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" ensure-fairy-stockfish fairy-stockfish
test -x "$STOCKFISH"
echo "ensure-fairy-stockfish: installed $STOCKFISH"
