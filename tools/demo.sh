#!/usr/bin/env bash
# The README's run command: installs what is missing, builds (Release) and runs
# the main job on built-in defaults. Until the daemon exists (issue 3) the main
# job is the simulator at the JSQ+MaxWeight paper's scale, run for JSQ+MaxWeight
# and for naive fair sharing at the same load, with live figures.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh release
sim=build/release/tools/locsched-sim
echo
echo "== JSQ+MaxWeight, paper defaults (1000 machines, data on 800, alpha 0.8, gamma 0.2, load 640)"
"$sim" "$@"
echo
echo "== naive fair sharing, same load (it cannot keep up: the run stops at the backlog cap)"
"$sim" --policy fair "$@"
