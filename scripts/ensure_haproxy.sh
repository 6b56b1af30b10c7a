#!/usr/bin/env bash
# Make sure Debian's HAProxy is installed: deploy/serve.py puts it in front of several lab processes
# (and its test starts one). As root: installs the package with apt-get and leaves Debian's own
# service stopped (serve.py runs its own, in the foreground). Otherwise: says how, and fails.
set -euo pipefail

HAPROXY=$(command -v haproxy || echo /usr/sbin/haproxy)

if [[ -x "$HAPROXY" ]]; then
    echo "haproxy: $("$HAPROXY" -v | head -1)"
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    cat >&2 <<MSG
ERROR: HAProxy is missing, and deploy/serve.py needs it to serve the lab from several processes.
Install Debian's HAProxy, then run this again:

    sudo apt-get update && sudo apt-get install -y haproxy
MSG
    exit 1
fi

echo "haproxy: not installed; installing Debian's package with apt-get..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q haproxy
# The package starts a service of its own where it can, on its own configuration; serve.py runs its own.
(command -v service >/dev/null && service haproxy stop) >/dev/null 2>&1 || true
echo "haproxy: $(/usr/sbin/haproxy -v | head -1)"
