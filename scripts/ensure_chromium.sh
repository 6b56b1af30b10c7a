#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser tests.
# As root: installs it with apt-get. Otherwise: says how, and fails; the browser
# tests are never skipped silently. We never run `playwright install`: Playwright
# drives this Debian build through executable_path.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [[ -x "$CHROMIUM" ]]; then
    echo "chromium: $("$CHROMIUM" --version 2>/dev/null || echo "present at $CHROMIUM")"
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    cat >&2 <<MSG
ERROR: $CHROMIUM is missing, and the browser tests (tests/e2e) need it.
Install Debian's Chromium, then run this again:

    sudo apt-get update && sudo apt-get install -y chromium

(Do not use 'playwright install': the tests drive Debian's build.)
MSG
    exit 1
fi

echo "chromium: not installed; installing Debian's package with apt-get (about a minute)..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q chromium
echo "chromium: $("$CHROMIUM" --version)"
