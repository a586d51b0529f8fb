#!/bin/sh
# Install Debian's Noto CJK fonts, only when they are missing, so that the browser tests'
# screenshots of the xiangqi board show the pieces' Chinese characters (帥 將 ...) and the river
# (楚河 漢界) instead of empty boxes. Idempotent: with the fonts present it makes no network access.
set -eu
if fc-list 2>/dev/null | grep -qi "Noto Sans CJK\|Noto Serif CJK"; then
    exit 0
fi
if [ -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ]; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "ensure-cjk-fonts: the Noto CJK fonts are missing; run as root: apt-get install -y fonts-noto-cjk" >&2
        exit 1
    fi
fi
# Another apt/dpkg may hold the lock (unattended upgrades, a parallel install): wait for it.
apt_get() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}
apt_get update -qq
apt_get install -y -qq --no-install-recommends fonts-noto-cjk fontconfig >/dev/null
echo "ensure-cjk-fonts: installed fonts-noto-cjk"
