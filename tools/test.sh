#!/usr/bin/env bash
# The README's test command (and CI's): installs what is missing, builds, and
# checks formatting, then runs the whole suite twice: optimized, then under
# AddressSanitizer + UBSan; builds the Debian package of the optimized build and
# checks it unpacked; runs the README's demo (its --quick default path) in a copy
# of the repository with nothing beside it, as on a fresh clone; last, fuzzes the two
# parsers for a minute (tools/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
echo "== format: clang-format --dry-run (style in .clang-format)"
{ git ls-files '*.cc' '*.h' 2>/dev/null ||
  find algorithms bench daemon io config tests tools -name '*.cc' -o -name '*.h'; } |
  xargs clang-format --dry-run --Werror
for flavour in release asan; do
  echo "== $flavour: build"
  bash tools/build.sh "$flavour"
  echo "== $flavour: test"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "build/$flavour" --output-on-failure -j "$(nproc)" --timeout 600
done
# The Debian package of the release build, unpacked into a scratch root and checked.
echo "== package: cpack -G DEB, unpacked, locschedd --check-config on its config"
bash tests/packaging/package_test.sh build/release
# The demo's default path needs nothing outside the repository (about 30 s).
echo "== demo: tools/demo.sh --quick in a copy of the repository with nothing beside it"
fresh=$(mktemp -d /tmp/locsched-fresh-XXXXXX)
trap 'rm -rf "$fresh"' EXIT
mkdir "$fresh/locsched"
{ git ls-files -co --exclude-standard 2>/dev/null || find . -path ./build -prune -o -type f -print; } |
  while read -r f; do [ -f "$f" ] && echo "$f"; done | tar -cf - -T - | tar -xf - -C "$fresh/locsched"
bash "$fresh/locsched/tools/demo.sh" --quick --quiet --build "$PWD/build/release"
# About 2.5 minutes on two cores: the clang build of the parsers, then 30 s per fuzzer.
echo "== fuzz: request decoder and config loader, 60 s"
bash tools/fuzz.sh 60
