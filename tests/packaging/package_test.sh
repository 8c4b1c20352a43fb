#!/bin/bash
# Builds the Debian package of BUILD_DIR with CPack, checks its metadata
# (Depends from dpkg-shlibdeps, the conffiles, the maintainer scripts), unpacks
# it into a scratch root and checks the files, then runs the unpacked
# `locschedd --check-config` on the unpacked default config and the unpacked
# programs' --version; last, dpkg_install_test.sh installs, upgrades, removes and
# purges it in a throwaway root. tools/test.sh runs it on the release build.
# Usage: package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
source "$here/expect_tree.sh"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

rm -rf "$build/package"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/package/locsched_*.deb)
echo "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"

field() { dpkg-deb --field "$deb" "$1"; }
[ "$(field Package)" = locsched ]
[ -n "$(field Maintainer)" ] && [ -n "$(field Description)" ]
depends=$(field Depends)
for lib in libc6 libstdc++6 libsystemd0; do
  grep -q "\b$lib\b" <<<"$depends" || { echo "Depends lacks $lib: $depends"; exit 1; }
done
dpkg-deb --ctrl-tarfile "$deb" | tar -x -C "$root"
grep -qx /etc/locsched/locsched.toml "$root/conffiles"
for s in postinst prerm postrm; do
  [ -x "$root/$s" ] || { echo "no executable $s"; exit 1; }
  sh -n "$root/$s"
done
grep -q "systemd-sysusers locsched.conf" "$root/postinst"
grep -q "daemon-reload" "$root/postinst"
rm -rf "${root:?}"/*

dpkg-deb -x "$deb" "$root"
expect_tree "$root" /usr man
# Every file under /etc is a conffile.
etc=$(cd "$root" && find etc -type f | sed 's,^,/,' | sort)
[ "$etc" = "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | sort)" ]

# What postinst runs, in the scratch root: the package's sysusers file makes the user.
systemd-sysusers --root="$root" locsched.conf >/dev/null 2>&1
grep -q '^locsched:x:[0-9]*:[0-9]*:.*:/var/lib/locsched:' "$root/etc/passwd"
rm -f "$root"/etc/passwd* "$root"/etc/group* "$root"/etc/shadow* "$root"/etc/gshadow*

"$root/usr/sbin/locschedd" --check-config "$root/etc/locsched/locsched.toml" >"$root/check.out"
grep -q ": OK$" "$root/check.out"
for p in usr/sbin/locschedd usr/bin/locschedctl usr/bin/locsched-agents usr/bin/locsched-sim \
         usr/bin/locsched-solve usr/bin/locsched-tail; do
  "$root/$p" --version | grep -q "^$(basename "$p") $(field Version | cut -d- -f1)$"
done
echo "package complete: unpacked locschedd --check-config accepts the installed config"
bash "$here/dpkg_install_test.sh" "$deb"
