#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, ASan + UBSan) and runs each for SECONDS
# (default 60): fuzz_frames (firmware/frames.hpp: decoders, byte streams, round trip, command
# validation), fuzz_scenario (host_sim/scenario.cpp: TOML scenario parser) and fuzz_fmu (the FMU's
# fmi3* API: call sequences, values, saved states).
# Usage: scripts/fuzz.sh [SECONDS]
# Corpus, seeds, logs and crash artifacts stay under build/fuzz/. Exits non-zero on any crash,
# leak, timeout or sanitizer report (the log and the input that caused it are named).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/fuzz.sh [SECONDS]   (a positive whole number, default 60)" >&2
  exit 2
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

build=build/fuzz
bin=${build}/tests/fuzz
# Seeds are regenerated on every run; the corpus (what the fuzzer learnt) is kept between runs.
rm -rf "${build}/seeds"
mkdir -p "${build}/seeds/fuzz_frames" "${build}/seeds/fuzz_scenario" "${build}/seeds/fuzz_fmu" "${build}/logs"
"${bin}/fuzz_frame_seeds" "${build}/seeds/fuzz_frames"
cp host_sim/scenarios/*.toml "${build}/seeds/fuzz_scenario/"
# A scenario followed by --set overrides (after a NUL byte, one per line: see fuzz_scenario.cpp).
{ cat host_sim/scenarios/realtime_belt_drive.toml
  printf '\0solver.step_size=1e-4\nbelt.elements=30\nfriction.stick_memory=segment\noutput.plots=false'
} > "${build}/seeds/fuzz_scenario/realtime_with_overrides.bin"
# Regressions (host_sim/scenario.cpp): a table header "[" and a line break tripped toml++'s
# assert(); a non-ASCII character outside strings reached __builtin_unreachable() in toml++.
printf '[\n[pulley]]\n' > "${build}/seeds/fuzz_scenario/open_table_header.toml"
printf '[belt]\nelements = 60 \303\251\n' > "${build}/seeds/fuzz_scenario/non_ascii.toml"

# FMU API programs (tests/fuzz/fuzz_fmu.cpp: op, slot, instance, arguments): instantiate,
# initialize, step, save a state, step, restore it, serialize it whole and truncated.
printf '\x00\x00\x00\x17\x02\x00\x00\x00\x03\x00\x00\x08\x00\x00\x04\x09\x00\x00\x00\x08\x00\x00\x04\x0a\x00\x00\x00\x0c\x00\x00\x00\x00\x0c\x00\x00\x00\x01\x10' \
  > "${build}/seeds/fuzz_fmu/initialize_step_rewind.bin"
printf '\x00\x00\x00\x17\x04\x00\x00\x02\x01\x00\x0b\x05\x00\x00\x0a\x05\x08\x00\x00\x04\x0d\x00\x00' \
  > "${build}/seeds/fuzz_fmu/bad_values_before_initialization.bin"
# Regression (tests/fuzz/fuzz_fmu.cpp): an intact serialized state sent through the truncation
# branch with a zero cut was expected to be refused (a harness error, found in CI).
printf '\x00\x00\x00\x17\x02\x00\x00\x00\x03\x00\x00\x08\x00\x00\x04\x09\x00\x00\x04\x0a\x00\x00\x00\x0c\x00\x00\x00\x00\x0c\x00\x00\x00\x01\x00\x00\x00\x01\x10' \
  > "${build}/seeds/fuzz_fmu/serialize_intact_state.bin"
# Regression (tests/fuzz/fuzz_fmu.cpp): a fuzzed communication step of 0.002 s is a whole multiple
# of the model step and is accepted; the harness expected only its own n*h sizes to succeed (CI).
printf '\x00\x00\x00\x17\x02\x00\x00\x00\x03\x00\x00\x08\x00\x00\x84\x04\xfc\xa9\xf1\xd2\x4d\x62\x60\x3f\x01' \
  > "${build}/seeds/fuzz_fmu/fuzzed_whole_step.bin"
# Regression (firmware/fmu/fmu_instance.hpp doStep): a communication step of -7.5e90 model steps
# was converted to int64 before its range check (undefined behaviour, found by CI's fuzz smoke).
printf '\x00\x00\x00\x17\x02\x00\x00\x00\x03\x00\x00\x08\x00\x00\x84\x04\xfc\xa9\xf1\xff\xff\xff\x2d\xd2\x4d\x62\x60\x3f\x01\x01\x00\x00\x00\x00\x00\x00\x1d' \
  > "${build}/seeds/fuzz_fmu/huge_negative_step.bin"
# Regression (tests/fuzz/fuzz_fmu.cpp): at a start time of -1e9 s the FMU's time after a step is
# right to an ulp (1.2e-7 s); the harness compared it with an absolute 1e-9 s (found by CI).
printf '\x00\x00\x00\x17\x02\x00\x10\x2b\x22\x03\x00\x00\x08\x00\x22\xff\xff\xff\xff\xff\xff\xff\xff\x84\x03\x00\x00\x08\x00\x00\x09\x00\x00\x00\x08\x00\x04\x0c\x00\x01\x10' \
  > "${build}/seeds/fuzz_fmu/far_negative_start_time.bin"

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:print_summary=1:quarantine_size_mb=64"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1"

failed=()
for target in fuzz_frames fuzz_scenario fuzz_fmu; do
  corpus=${build}/corpus/${target}
  artifacts=${build}/artifacts/${target}
  log=${build}/logs/${target}.log
  mkdir -p "$corpus" "$artifacts"
  extra=()
  [[ "$target" == fuzz_scenario ]] && extra+=("-dict=tests/fuzz/scenario.dict")
  echo "=================== ${target}: ${seconds} s ==================="
  status=0
  "${bin}/${target}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="${artifacts}/" "${extra[@]}" "$corpus" "${build}/seeds/${target}" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
  secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)
  units=$(find "$corpus" -type f | wc -l)
  if [[ $status -eq 0 && -n "$runs" ]] \
     && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$log"; then
    echo "${target}: OK, ${runs} executions in ${secs} s ($(( runs / (secs > 0 ? secs : 1) )) exec/s), corpus ${units} inputs"
  else
    echo "${target}: FAILED (exit ${status}); log: ${log}"
    grep -E 'ERROR:|runtime error:|SUMMARY:|property violated|Test unit written to|^==[0-9]+== ?ERROR' "$log" | head -n 20 || true
    failed+=("$target")
  fi
done

if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzz: FAILED targets: ${failed[*]} (reproduce: build/fuzz/tests/fuzz/TARGET ARTIFACT)"
  exit 1
fi
echo "fuzz: all targets passed (${seconds} s each)"
