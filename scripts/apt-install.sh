#!/bin/sh
# Install Debian packages for the scripts/ensure-*.sh checks: apt-get as root, or through
# passwordless sudo, waiting for another apt/dpkg that holds the lock (unattended upgrades, a
# parallel install). Usage: apt-install.sh WHO PACKAGE...  (WHO names the caller in errors.)
set -eu
WHO=$1
shift
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo -n"
    else
        echo "$WHO: missing; run as root: apt-get install -y $*" >&2
        exit 1
    fi
fi
apt_get() {
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}
apt_get update -qq
apt_get install -y -qq --no-install-recommends "$@" >/dev/null
