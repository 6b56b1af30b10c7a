#!/usr/bin/env bash
# Make sure the Debian packages the tests and deploy/ need are installed:
#   chromium    the browser tests drive it (Playwright through executable_path; never `playwright install`)
#   postgresql  class mode's tests start a server of their own with its programs (scripts/postgres.py)
#   haproxy     deploy/serve.py puts it in front of several lab processes (its test starts one)
# Usage: bash scripts/ensure_debian.sh chromium postgresql haproxy
# As root: installs what is missing with apt-get, and stops the services the packages start (the lab
# runs its own). Otherwise: says how, and fails: no test is ever skipped for a missing package.
set -euo pipefail

found() {  # the installed program that stands for package $1, or nothing
    case "$1" in
        chromium) [[ -x /usr/bin/chromium ]] && echo /usr/bin/chromium ;;
        postgresql) compgen -G "/usr/lib/postgresql/*/bin/initdb" | tail -1 ;;
        haproxy) command -v haproxy || { [[ -x /usr/sbin/haproxy ]] && echo /usr/sbin/haproxy; } ;;
    esac
}

for package in "$@"; do
    case "$package" in
        chromium | postgresql | haproxy) ;;
        *) echo "ensure_debian.sh: no rule for package '$package'" >&2; exit 2 ;;
    esac
done

missing=()
for package in "$@"; do
    if program=$(found "$package") && [[ -n "$program" ]]; then
        echo "$package: $program"
    else
        missing+=("$package")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ "$(id -u)" -ne 0 ]]; then
    cat >&2 <<MSG
ERROR: Debian's ${missing[*]} missing, and the tests need it. Install, then run this again:

    sudo apt-get update && sudo apt-get install -y ${missing[*]}
MSG
    exit 1
fi

echo "installing Debian's ${missing[*]} with apt-get..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
for package in "${missing[@]}"; do
    case "$package" in  # started by the package where it can; the lab starts its own
        postgresql | haproxy) (command -v service >/dev/null && service "$package" stop) >/dev/null 2>&1 || true ;;
    esac
    echo "$package: $(found "$package")"
done
