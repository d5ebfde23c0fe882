#!/usr/bin/env bash
# The main job: builds the host simulator and runs the real-time belt-drive scenario, then
# prints its summary and where the plots are. Usage: scripts/run_main.sh [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset host >/dev/null
cmake --build --preset host --target beltsim
out=${1:-build/main_job/realtime_belt_drive}
rm -rf "$out"
build/host/host_sim/beltsim run host_sim/scenarios/realtime_belt_drive.toml --out "$out"
echo "=== summary ($out/summary.json) ==="
cat "$out/summary.json"
echo "=== plots ==="
ls "$out"/*.png
