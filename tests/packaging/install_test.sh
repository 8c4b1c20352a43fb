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
# Every link in the installed docs resolves to an installed file (web links aside),
# and so does the unit's Documentation=.
python3 - "$root/usr/share/doc/locsched" <<'EOF'
import glob, os, re, sys
docdir = sys.argv[1]
docs = glob.glob(os.path.join(docdir, "**", "*.md"), recursive=True)
dead = []
for doc in docs:
    with open(doc) as f:
        text = f.read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
        if not os.path.isfile(path):
            dead.append("%s: %s" % (os.path.relpath(doc, docdir), target))
if dead:
    sys.exit("dead links in the installed docs:\n  " + "\n  ".join(dead))
print("every link in the %d installed docs resolves" % len(docs))
EOF
unit_doc=$(sed -n 's|^Documentation=file://||p' "$root/usr/lib/systemd/system/locsched.service")
[ -f "$root$unit_doc" ] || { echo "the unit's Documentation= $unit_doc is not installed"; exit 1; }
echo "the unit's Documentation= is installed"
# A second install keeps the operator's config and refreshes the .default.
echo "# edited" >> "$root/etc/locsched/locsched.toml"
out=$(DESTDIR=$root cmake --install "$build" --prefix /usr)
grep -q "Keeping: $root/etc/locsched/locsched.toml" <<<"$out"
grep -q "^# edited$" "$root/etc/locsched/locsched.toml"
cmp -s "$root/etc/locsched/locsched.toml.default" "$here/../../config/locsched.toml"
echo "a second install keeps the edited config"
