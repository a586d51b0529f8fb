#!/bin/sh
# Install Debian's headless Chromium for the browser tests, only when it is missing.
# Idempotent: with /usr/bin/chromium present it does nothing and makes no network access.
# Playwright (from pip) drives this binary; it never downloads a browser of its own.
set -eu
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "ensure-chromium: $CHROMIUM is missing; run as root: apt-get install -y chromium chromium-driver" >&2
        exit 1
    fi
else
    SUDO=""
fi
# Another apt/dpkg may hold the lock (unattended upgrades, a parallel install): wait for it.
apt_get() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}
apt_get update -qq
apt_get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
test -x "$CHROMIUM"
echo "ensure-chromium: installed $($CHROMIUM --version 2>/dev/null || echo chromium)"
