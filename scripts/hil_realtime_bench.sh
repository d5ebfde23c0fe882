#!/usr/bin/env bash
# Real-time benchmark of the host plant (a benchmark, not a test: a shared machine's jitter is
# not a pass/fail criterion). beltsim hil ticks at 1 kHz against the wall clock for 10 s with
# beltctl closing the loop in real time; prints the plant's step-time and tick-jitter
# percentiles, overruns and late frames from its summary.json.
# Usage: scripts/hil_realtime_bench.sh [SECONDS]   (after cmake --build --preset host)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
out=build/hil_realtime_bench
rm -rf "$out"
mkdir -p "$out"
prio=()
if [[ $(id -u) -eq 0 ]]; then prio=(--rt-priority 80); fi  # SCHED_FIFO + mlockall when allowed
build/host/host_sim/beltsim hil host_sim/scenarios/hil_belt_drive.toml --udp 127.0.0.1:47895 --duration "$seconds" \
  --hold 50 --out "$out/plant" --quiet "${prio[@]}" &
plant=$!
sleep 0.3
# The controller runs 0.5 s longer than the plant, so the plant never sees it go silent.
build/host/host_sim/beltctl --udp 127.0.0.1:47895 --duration "$(python3 -c "print($seconds + 0.5)")" --load-step 5:25 --summary "$out/controller.json" \
  || true
wait $plant
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out/plant/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st, j = s['step_time'], s['tick_jitter']
print('plant, real time 1 kHz, %d ticks: step time median %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us'
      % (st['count'], st['median_us'], st['p99_us'], st['p999_us'], st['max_us']))
print('tick jitter: median %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us; overruns %d, late frames %d, '
      'rejected %d, safe state %d' % (j['median_us'], j['p99_us'], j['p999_us'], j['max_us'], s['overruns'],
                                      s['late_frames'], s['rejected_frames'], s['safe_state']))
PY
