#!/bin/sh
# Install Debian's mosquitto (the MQTT broker of the club broadcast's tests, bench and demo,
# docs/broadcast.md) only when it is missing. Only the program is used: the tests start their own
# broker on a free port with a generated config, never the system service.
set -eu
if command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" ensure-mosquitto mosquitto
[ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null
echo "ensure-mosquitto: installed mosquitto"
