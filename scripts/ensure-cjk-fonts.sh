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
sh "$(dirname "$0")/apt-install.sh" ensure-cjk-fonts fonts-noto-cjk fontconfig
echo "ensure-cjk-fonts: installed fonts-noto-cjk"
