#!/bin/sh
# Install Debian's headless Chromium for the browser tests, only when it is missing.
# Idempotent: with /usr/bin/chromium present it does nothing and makes no network access.
# Playwright (from pip) drives this binary; it never downloads a browser of its own.
set -eu
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" ensure-chromium chromium chromium-driver fonts-dejavu-core
test -x "$CHROMIUM"
echo "ensure-chromium: installed $($CHROMIUM --version 2>/dev/null || echo chromium)"
