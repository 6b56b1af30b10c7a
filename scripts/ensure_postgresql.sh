#!/usr/bin/env bash
# Make sure Debian's PostgreSQL server programs are installed: class mode's tests run against a real
# PostgreSQL that the test run starts itself (scripts/postgres.py). As root: installs the package with
# apt-get and leaves Debian's own cluster stopped. Otherwise: says how, and fails.
set -euo pipefail

if compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
    echo "postgresql: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    cat >&2 <<MSG
ERROR: PostgreSQL's server programs are missing, and class mode's tests need them.
Install Debian's PostgreSQL, then run this again:

    sudo apt-get update && sudo apt-get install -y postgresql
MSG
    exit 1
fi

echo "postgresql: not installed; installing Debian's package with apt-get..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q postgresql
# The package starts a cluster of its own where it can; the tests start theirs.
(command -v service >/dev/null && service postgresql stop) >/dev/null 2>&1 || true
echo "postgresql: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
