#!/bin/bash
# Installs DEB with dpkg into a throwaway copy of this system (an overlay of / in
# a private mount namespace, chrooted: the host is not touched) and checks the
# package's life: install (user created, conffiles registered, the installed
# locschedd --check-config accepts the installed config),
# an upgrade over an edited config (the edit stays), remove (the config stays)
# and purge (it goes). Needs root and overlayfs; says so and stops otherwise.
# Usage: dpkg_install_test.sh DEB
set -euo pipefail
deb=$(realpath "$1")
work=$(mktemp -d /tmp/locsched-dpkg-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/upper" "$work/work" "$work/root"
if ! unshare -m --propagation private mount -t overlay overlay \
    -o "lowerdir=/,upperdir=$work/upper,workdir=$work/work" "$work/root" 2>/dev/null; then
  echo "dpkg_install_test: cannot mount an overlay of / here (needs root and overlayfs); not run"
  exit 0
fi
cp "$deb" "$work/upper/locsched.deb"  # visible in the overlay as /locsched.deb

# Runs in the chroot; each step fails the test with its name.
steps='
set -e
step() { echo "dpkg: $1"; }
dpkg -i /locsched.deb >/dev/null
step "installed"
getent passwd locsched | grep -q ":/var/lib/locsched:"
dpkg-query -W -f="\${Conffiles}\n" locsched | grep -q "^ /etc/locsched/locsched.toml "
locschedd --check-config /etc/locsched/locsched.toml | grep -q ": OK$"
locschedctl --version >/dev/null
step "user, conffiles and the installed locschedd --check-config on the installed config"
echo "# edited" >> /etc/locsched/locsched.toml
dpkg -i /locsched.deb >/dev/null
[ "$(tail -1 /etc/locsched/locsched.toml)" = "# edited" ]
step "upgrade keeps the edited config"
dpkg -r locsched >/dev/null
[ ! -e /usr/sbin/locschedd ] && [ -f /etc/locsched/locsched.toml ]
step "remove keeps the config"
dpkg -P locsched >/dev/null
[ ! -e /etc/locsched ]
step "purge removes it"
'
unshare -m --propagation private bash -c '
  set -e
  mount -t overlay overlay -o "lowerdir=/,upperdir=$1/upper,workdir=$1/work" "$1/root"
  mount -t proc proc "$1/root/proc"
  mount --bind /dev "$1/root/dev"
  chroot "$1/root" sh -c "$2"' _ "$work" "$steps" 2>&1 | grep -v "^Creating \(user\|group\) .locsched."
echo "dpkg install, upgrade, remove and purge in a throwaway root: ok"
