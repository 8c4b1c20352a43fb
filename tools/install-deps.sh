#!/usr/bin/env bash
# Installs the Debian 12 packages locsched builds and tests with, but only the
# ones missing, so a second run is instant. Needs root (or sudo) only to install.
set -euo pipefail

PACKAGES=(
  # toolchain
  cmake ninja-build g++ pkg-config clang-format git
  # fuzzing (tools/fuzz.sh): clang 14, its libFuzzer/sanitizer runtimes (only a
  # Recommends of clang, which --no-install-recommends skips), llvm-symbolizer
  clang libclang-rt-14-dev llvm
  # libraries (cmake/Dependencies.cmake finds them)
  libboost-dev liblemon-dev libglpk-dev libtomlplusplus-dev libspdlog-dev catch2
  nlohmann-json3-dev libsimdjson-dev libcli11-dev libsystemd-dev libbenchmark-dev zlib1g-dev
  # high availability: ZooKeeper's C client, and the server the HA tests start on loopback
  # (zookeeperd's own service start is refused in containers; the tests never use it)
  libzookeeper-mt-dev zookeeperd
  # TLS on the TCP listener and its clients; the openssl CLI makes the tests' throwaway CA
  libssl-dev openssl
  # charts and black-box tests; promtool checks /metrics, headless Chromium loads the dashboard
  python3 python3-matplotlib prometheus chromium
  # systemd-analyze (unit check) and /bin/kill (the unit's ExecReload)
  systemd procps
  # man pages and the Debian package (cpack -G DEB: dpkg-shlibdeps, file)
  help2man dpkg-dev file
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
