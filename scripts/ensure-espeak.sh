#!/bin/sh
# Install Debian's espeak-ng (spoken moves, docs/learning.md) only when it is missing.
# Idempotent: with espeak-ng on the PATH it does nothing.
set -eu
if command -v espeak-ng >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" ensure-espeak espeak-ng
command -v espeak-ng >/dev/null
echo "ensure-espeak: installed $(command -v espeak-ng)"
