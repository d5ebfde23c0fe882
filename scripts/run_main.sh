#!/usr/bin/env bash
# The main job: builds the host simulator and runs the real-time belt-drive scenario, then
# prints its summary and where the plots are.
#   scripts/run_main.sh [OUTPUT_DIR]                 offline run of the default scenario
#   scripts/run_main.sh --closed-loop [OUTPUT_DIR]   plant (beltsim hil, lockstep, the eulerian mesh of
#       hil_eulerian_belt_drive.toml) + reference PI controller (beltctl): speed step 0 -> 12 rad/s,
#       25 N m load step; plots commanded vs actual speed, drive torque and span forces
#   scripts/run_main.sh --closed-loop-faults [OUTPUT_DIR]   the same for 3 s against
#       hil_injected_faults.toml: a wet motor pulley, then a stuck motor encoder
#       (docs/hil.md, "A controller against injected faults")
set -euo pipefail
cd "$(dirname "$0")/.."
closed_loop=0
scenario=host_sim/scenarios/hil_eulerian_belt_drive.toml
duration=2
name=closed_loop
if [[ "${1:-}" == "--closed-loop" ]]; then
  closed_loop=1
  shift
elif [[ "${1:-}" == "--closed-loop-faults" ]]; then
  closed_loop=1
  scenario=host_sim/scenarios/hil_injected_faults.toml
  duration=3
  name=closed_loop_faults
  shift
fi
bash scripts/setup.sh --host-only  # cross toolchains and QEMU: the test command only
cmake --preset host >/dev/null
if [[ $closed_loop -eq 0 ]]; then
  cmake --build --preset host --target beltsim
  out=${1:-build/main_job/realtime_belt_drive}
  rm -rf "$out"
  build/host/host_sim/beltsim run host_sim/scenarios/realtime_belt_drive.toml --out "$out"
  echo "=== summary ($out/summary.json) ==="
  cat "$out/summary.json"
  echo "=== plots ==="
  ls "$out"/*.png
  exit 0
fi

cmake --build --preset host --target beltsim beltctl
out=${1:-build/main_job/$name}
rm -rf "$out"
mkdir -p "$out"
port=47890
build/host/host_sim/beltsim hil "$scenario" --udp 127.0.0.1:$port --lockstep \
  --duration "$duration" --out "$out/plant" &
plant=$!
trap 'kill $plant 2>/dev/null || true' EXIT
sleep 0.5
build/host/host_sim/beltctl --udp 127.0.0.1:$port --lockstep --duration "$duration" --log "$out/controller.csv" \
  --summary "$out/controller.json"
wait $plant
trap - EXIT
mesh=$(python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print(f\"{s['elements']} {s['belt_mesh']} elements\")" \
  "$out/plant/summary.json")
if command -v gnuplot >/dev/null; then
  gnuplot <<GNUPLOT
set datafile separator ','
set terminal pngcairo size 1000,1200 noenhanced
set output '$out/$name.png'
set multiplot layout 3,1 title 'Closed loop: beltctl PI speed controller and the belt-drive plant ($(basename "$scenario"), $mesh, 1 ms)'
set xlabel 't [s]'; set grid
set ylabel 'speed [rad/s]'
plot '$out/controller.csv' using 1:2 with lines lw 2 title 'commanded (reference)', \
     '' using 1:3 with lines title 'motor pulley P1', '' using 1:4 with lines title 'load pulley P2', \
     '' using 1:5 with lines dt 2 title 'P1 as the controller reads it (encoder)'
set ylabel 'torque [N m]'
plot '$out/controller.csv' using 1:6 with lines title 'motor torque command', '' using 1:8 with lines title 'load torque'
set ylabel 'span force [N]'
plot '$out/controller.csv' using 1:9 with lines title 'span P1->P2 (truth)', '' using 1:10 with lines title 'span P2->P1 (truth)', \
     '' using 1:11 with lines dt 2 title 'load cell 1', '' using 1:12 with lines dt 2 title 'load cell 2'
unset multiplot
GNUPLOT
fi
echo "=== plant summary ($out/plant/summary.json) ==="
cat "$out/plant/summary.json"
echo "=== controller ($out/controller.json) ==="
cat "$out/controller.json"
echo "=== plot ==="
ls "$out"/*.png 2>/dev/null || echo "(gnuplot not installed: no plot)"
