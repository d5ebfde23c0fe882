#!/usr/bin/env bash
# The product FMU through an importer this project did not write (issue 35): fmusim 0.0.39, the
# Reference-FMUs' importer (../shared/tools/fmusim-0.0.39, built into the build folder). It
# validates modelDescription.xml against the FMI 3.0 schema and resolves every fmi3* function at
# load time, and stops at any status but fmi3OK. A speed ramp 0 -> 12 rad/s over 0.6 s, then held,
# to 1.2 s; the same run saved to a state file at 0.6 s and resumed from it must end on the
# straight run's last row, digit for digit (the state is the whole plant: a rerun is bit-identical).
# When it saves or restores a state file, fmusim 0.0.39 passes the state itself to
# fmi3FreeFMUState, which the FMU accepts for its own states (docs/fmu.md).
# Usage: fmusim_state_file.sh SOURCE_DIR FMU WORK_DIR      exit 77: skipped (no ../shared)
set -euo pipefail
source_dir=$1 fmu=$2 work=$3
source "$(dirname "$0")/fmusim_build.sh"
fmusim_build "$source_dir" "$work"
rm -rf "$work/run" && mkdir -p "$work/run" && cd "$work/run"
printf 'time,motor_speed_command\n0,0\n0.6,12\n1.2,12\n' > inputs.csv
common=(--interface-type cs --output-interval 0.001 --input-file inputs.csv)
"$fmusim" "${common[@]}" --stop-time 1.2 --output-file straight.csv "$fmu" > straight.log 2>&1 \
  || { echo "FAIL: the straight run stopped (exit $?):"; cat straight.log; exit 1; }
"$fmusim" "${common[@]}" --stop-time 0.6 --output-file first.csv --final-fmu-state-file state.bin "$fmu" \
  > first.log 2>&1 || { echo "FAIL: saving the state at 0.6 s stopped the run:"; cat first.log; exit 1; }
"$fmusim" "${common[@]}" --start-time 0.6 --stop-time 1.2 --output-file resumed.csv \
  --initial-fmu-state-file state.bin "$fmu" > resumed.log 2>&1 \
  || { echo "FAIL: resuming from the state file stopped the run:"; cat resumed.log; exit 1; }
straight=$(tail -1 straight.csv)
resumed=$(tail -1 resumed.csv)
echo "straight: $straight"
echo "resumed:  $resumed"
if [[ "$straight" != "$resumed" || "${straight%%,*}" != "1.2" ]]; then
  echo "FAIL: the resumed run does not end on the straight run's last row at t = 1.2 s"
  exit 1
fi
speed=$(echo "$straight" | cut -d, -f4)
if [[ "$speed" != "12" ]]; then
  echo "FAIL: the motor pulley's speed command at the end is $speed, expected 12"
  exit 1
fi
echo "PASS: fmusim loaded the FMU, ran it, saved its state at 0.6 s and resumed it to the same last row"
