#!/bin/bash
# Installs the build into a scratch root and checks the generated unit with
# `systemd-analyze verify`: any complaint about locsched.service fails. A copy
# with a misspelt key must be caught, which proves the check can fail.
# Usage: unit_test.sh BUILD_DIR
set -euo pipefail
build=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
DESTDIR=$root cmake --install "$build" >/dev/null
mkdir -p "$root/lib/systemd" "$root/bin"
cp -a /lib/systemd/system "$root/lib/systemd/"  # the targets the unit refers to
cp /bin/kill "$root/bin/kill"                     # ExecReload's program
unit=$(cd "$root" && find . -name locsched.service | head -1 | cut -c2-)

verify() {  # prints what systemd-analyze says about locsched units
  systemd-analyze verify --root="$root" "$1" 2>&1 | grep -i locsched || true
}
out=$(verify "$unit")
if [ -n "$out" ]; then
  echo "systemd-analyze verify complained:"; echo "$out"; exit 1
fi
sed 's/^WatchdogSec=/WatchdgSec=/' "$root$unit" > "$root${unit%.service}-bad.service"
if [ -z "$(verify "${unit%.service}-bad.service")" ]; then
  echo "a misspelt key went unnoticed: the check is broken"; exit 1
fi
grep -q '^Type=notify$' "$root$unit"
grep -q "^ExecStart=.*/locschedd --config /etc/locsched/locsched.toml \\\\$" "$root$unit"
grep -q "journal.path=/var/lib/locsched/journal.log$" "$root$unit"
test -f "$root/etc/locsched/locsched.toml"
echo "locsched.service verified ($unit)"
