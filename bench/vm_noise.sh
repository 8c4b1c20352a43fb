#!/usr/bin/env bash
# Whether this machine's speed swings come from the core or from the memory
# system: alternates bench/alu_spin (register-only arithmetic) with the simulator
# at load 640 over SLOTS slots (default 30,000), ROUNDS times (default 5), and
# prints both wall times per round, then each one's spread (max / min).
# Usage: bash bench/vm_noise.sh [ROUNDS] [SLOTS]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
rounds=${1:-5} slots=${2:-30000}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "vm_noise.sh: ROUNDS must be a positive integer" >&2; exit 2; }
[[ $slots =~ ^[1-9][0-9]*$ ]] || { echo "vm_noise.sh: SLOTS must be a positive integer" >&2; exit 2; }
spin=build/release/bench/alu_spin sim=build/release/tools/locsched-sim
for b in "$spin" "$sim"; do
  [ -x "$b" ] || { echo "vm_noise.sh: build first: bash tools/build.sh release" >&2; exit 1; }
done
spins=() sims=()
for r in $(seq "$rounds"); do
  s=$("$spin" | cut -d' ' -f1)
  m=$("$sim" --policy jsq-maxweight --load 640 --slots "$slots" --seed 1 --json -q |
    python3 -c 'import json, sys; print(round(json.load(sys.stdin)["wall_seconds"], 3))')
  echo "round $r: alu_spin $s s, locsched-sim $m s"
  spins+=("$s") sims+=("$m")
done
python3 - "${spins[*]}" "${sims[*]}" <<'PY'
import sys
for name, arg in (("alu_spin", sys.argv[1]), ("locsched-sim", sys.argv[2])):
    v = [float(x) for x in arg.split()]
    print(f"{name}: {min(v):.3f}-{max(v):.3f} s, spread {max(v) / min(v):.2f}x")
PY
