#!/usr/bin/env bash
# The accessory drive's FMU (built from host_sim/scenarios/accessory_drive.toml by the host preset's
# BELTSIM_FMU_SCENARIO) through fmusim 0.0.39, the Reference-FMUs' importer (see
# fmusim_state_file.sh): it validates modelDescription.xml against the FMI 3.0 schema (the
# structured variable names included), resolves every fmi3* function and stops at any status but
# fmi3OK. Inputs by the FMU's own names: the crankshaft's speed ramps 0 -> 10 rad/s over 0.05 s, the
# motor-generator's torque reverses from -3 to +3 N m at 0.08 s. At the end the crankshaft turns at
# its command (a speed-driven pulley, its acceleration limit reached long before) and the
# motor-generator's torque output is the boosting +3 N m.
# Usage: fmusim_scenario.sh SOURCE_DIR FMU WORK_DIR      exit 77: skipped (no ../shared)
set -euo pipefail
source_dir=$1 fmu=$2 work=$3
source "$(dirname "$0")/fmusim_build.sh"
fmusim_build "$source_dir" "$work"
rm -rf "$work/scenario_run" && mkdir -p "$work/scenario_run" && cd "$work/scenario_run"
printf 'time,crankshaft.speed_command,motor_generator.torque_command\n0,0,-3\n0.05,10,-3\n0.08,10,-3\n0.08,10,3\n0.1,10,3\n' \
  > inputs.csv
"$fmusim" --interface-type cs --output-interval 0.001 --input-file inputs.csv --stop-time 0.1 \
  --output-file out.csv "$fmu" > run.log 2>&1 || { echo "FAIL: the run stopped (exit $?):"; cat run.log; exit 1; }
header=$(head -1 out.csv)
last=$(tail -1 out.csv)
column() {  # value of the named column in the last row
  local i
  i=$(echo "$header" | tr ',' '\n' | grep -n -x "\"\{0,1\}$1\"\{0,1\}" | cut -d: -f1)
  [[ -n "$i" ]] || { echo "FAIL: no column $1 in $header" >&2; exit 1; }
  echo "$last" | cut -d, -f"$i"
}
speed=$(column crankshaft.speed)
torque=$(column motor_generator.torque)
echo "t = ${last%%,*} s: crankshaft.speed = $speed rad/s, motor_generator.torque = $torque N m"
python3 - "$speed" "$torque" <<'PY'
import sys
speed, torque = map(float, sys.argv[1:3])
ok = abs(speed - 10.0) < 1e-9 and abs(torque - 3.0) < 1e-12
print("PASS" if ok else "FAIL", "(expected 10 rad/s and 3 N m)")
sys.exit(0 if ok else 1)
PY
