#!/bin/sh
# Install Debian's espeak-ng (spoken moves, docs/learning.md) only when it is missing.
# Idempotent: with espeak-ng on the PATH it does nothing.
set -eu
if command -v espeak-ng >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "ensure-espeak: espeak-ng is missing; run as root: apt-get install -y espeak-ng" >&2
        exit 1
    fi
fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends espeak-ng >/dev/null
command -v espeak-ng >/dev/null
echo "ensure-espeak: installed $(command -v espeak-ng)"
