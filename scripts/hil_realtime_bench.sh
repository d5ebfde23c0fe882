#!/usr/bin/env bash
# Real-time benchmark of the host plant (a benchmark, not a test: a shared machine's jitter is
# not a pass/fail criterion). beltsim hil ticks at the scenario's step (1 kHz for the default
# microcontroller plant, 10 kHz for firmware/configs/pc.toml) against the wall clock with beltctl
# closing the loop in real time; prints the plant's step-time and tick-jitter percentiles,
# overruns by cause and late frames from its summary.json.
# Usage: scripts/hil_realtime_bench.sh [SECONDS [SCENARIO [BELTCTL OPTION ...]]]   (after cmake
# --build --preset host; another build folder: BELTSIM_BUILD=build/dev scripts/hil_realtime_bench.sh 10)
#   the PC configuration, 100,000 ticks: scripts/hil_realtime_bench.sh 10 firmware/configs/pc.toml
#   the accessory drive (beltctl's PI on the motor-generator, the crankshaft held at 40 rad/s):
#     scripts/hil_realtime_bench.sh 10 host_sim/scenarios/accessory_drive_eulerian.toml \
#       --hold 1:40 --speed-step 0.05:100 --load-step 5:2
# beltctl's --inputs follow from the scenario's pulley kinds.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
scenario=${2:-host_sim/scenarios/hil_eulerian_belt_drive.toml}
shift $(( $# < 2 ? $# : 2 ))
controller_options=("$@")
if [[ ${#controller_options[@]} -eq 0 ]]; then controller_options=(--load-step 5:25); fi
if [[ ! -f $scenario ]]; then echo "hil_realtime_bench: no scenario file '$scenario'" >&2; exit 2; fi
# beltctl's control period is the plant's step (its --step; the default 1e-3 s would end it after
# a tenth of a 10 kHz run and the plant would go to its safe state, controller silent).
step=$(python3 -c 'import sys, tomllib; print(tomllib.load(open(sys.argv[1], "rb"))["solver"]["step_size"])' "$scenario")
# The plant's inputs by pulley kind (inputOf in model/include/beltsim/system/plant.hpp).
inputs=$(python3 -c 'import sys, tomllib
kinds = {"speed": "speed", "torque": "torque", "fixed": "none"}
print(",".join(kinds.get(p.get("kind", "fixed_axis"), "load") for p in tomllib.load(open(sys.argv[1], "rb"))["pulley"]))' "$scenario")
build=${BELTSIM_BUILD:-build/host}
out=build/hil_realtime_bench
rm -rf "$out"
mkdir -p "$out"
prio=()
if [[ $(id -u) -eq 0 ]]; then prio=(--rt-priority 80); fi  # SCHED_FIFO + mlockall when allowed
"$build"/host_sim/beltsim hil "$scenario" --udp 127.0.0.1:47895 --duration "$seconds" \
  --hold 50 --out "$out/plant" --quiet "${prio[@]}" &
plant=$!
sleep 0.3
# beltctl answers every output frame at once (synchronized to the plant, PROTOCOL.md "Timing
# modes"): one command per tick, as many as the plant takes steps.
"$build"/host_sim/beltctl --udp 127.0.0.1:47895 --duration "$seconds" --step "$step" --inputs "$inputs" "${controller_options[@]}" --summary "$out/controller.json" \
  || true
wait $plant
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/plant/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st, j = s['step_time'], s['tick_jitter']
print('plant, real time, %d ticks: step time median %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us'
      % (st['count'], st['median_us'], st['p99_us'], st['p999_us'], st['max_us']))
c = s['step_cpu_time']
print('step CPU time (the compute alone): median %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us'
      % (c['median_us'], c['p99_us'], c['p999_us'], c['max_us']))
print('tick jitter: median %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us; overruns %d (compute %d, wake-up %d), '
      'late frames %d, rejected %d %s, safe state %d'
      % (j['median_us'], j['p99_us'], j['p999_us'], j['max_us'], s['overruns'], s['overruns_by_cause']['compute'],
         s['overruns_by_cause']['wake_up'], s['late_frames'], s['rejected_frames'], s['rejected_by_cause'],
         s['safe_state']))
PY
python3 - "$out/controller.json" <<'PY'
import json, os, sys
if not os.path.exists(sys.argv[1]):
    print('controller: no summary (beltctl failed)')
    sys.exit(0)
c = json.load(open(sys.argv[1]))
print('controller: %d frames received; speed step settles in %.3f s; load step dip %.3f rad/s, recovery %.3f s'
      % (c['frames_received'], c['settling_time_2pct'], c['load_dip'], c['load_recovery_time_2pct']))
PY
