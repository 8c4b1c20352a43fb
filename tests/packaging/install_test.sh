#!/bin/bash
# `cmake --install` into scratch roots (DESTDIR), at the default prefix and at
# /usr, puts every program, the unit (its ExecStart under the install prefix),
# the sysusers file, the default config, the scripts, the docs and (when
# help2man was found) the man pages where docs/operations.md says.
# Usage: install_test.sh BUILD_DIR
set -euo pipefail
build=$1
here=$(dirname "$0")
source "$here/expect_tree.sh"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
man=""
grep -q '^HELP2MAN:FILEPATH=/' "$build/CMakeCache.txt" && man=man
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
for p in "$prefix" /usr; do
  rm -rf "${root:?}"/*
  DESTDIR=$root cmake --install "$build" --prefix "$p" >/dev/null
  expect_tree "$root" "$p" $man
  echo "cmake --install --prefix $p: complete${man:+, with man pages}"
done
# The install table of docs/operations.md names exactly the installed programs.
doc=$here/../../docs/operations.md
for dir in bin sbin; do
  listed=$(grep "| \`PREFIX/$dir/\` |$" "$doc" | grep -o '`locsched[a-z-]*`' | tr -d '`' | sort)
  [ "$listed" = "$(ls "$root/usr/$dir" | sort)" ] ||
    { echo "docs/operations.md lists [$listed] in PREFIX/$dir, the install has: $(ls "$root/usr/$dir")"; exit 1; }
done
echo "docs/operations.md's install table names every installed program"
# A second install keeps the operator's config and refreshes the .default.
echo "# edited" >> "$root/etc/locsched/locsched.toml"
out=$(DESTDIR=$root cmake --install "$build" --prefix /usr)
grep -q "Keeping: $root/etc/locsched/locsched.toml" <<<"$out"
grep -q "^# edited$" "$root/etc/locsched/locsched.toml"
cmp -s "$root/etc/locsched/locsched.toml.default" "$here/../../config/locsched.toml"
echo "a second install keeps the edited config"
