#!/usr/bin/env bash
# Builds every preset and runs all tests: cortex-m7 (qemu-system-arm), aarch64 (qemu-aarch64),
# host-debug (ASan/UBSan), then host, whose last test compares the cross-target bit records;
# then a 15 s libFuzzer smoke run per fuzz target (scripts/fuzz.sh, preset fuzz).
# Exits non-zero if any configure, build, test or fuzz run fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

start=$(date +%s)
export BELTSIM_REQUIRE_ALL_TARGETS=1
rm -rf build/bitcheck
failed=()
for preset in cortex-m7 aarch64 host-debug host; do
  echo "=================== preset ${preset} ==================="
  t0=$(date +%s)
  if cmake --preset "$preset" >/dev/null \
     && cmake --build --preset "$preset" \
     && t1=$(date +%s) \
     && ctest --preset "$preset"; then
    echo "preset ${preset}: OK (build $(( t1 - t0 )) s, tests $(( $(date +%s) - t1 )) s)"
  else
    echo "preset ${preset}: FAILED"
    failed+=("$preset")
  fi
done
# Fuzzing smoke run (libFuzzer, clang, ASan/UBSan): 15 s per target; the full run is 60 s.
echo "=================== fuzz (smoke) ==================="
if bash scripts/fuzz.sh 15; then
  echo "fuzz: OK"
else
  echo "fuzz: FAILED"
  failed+=("fuzz")
fi
elapsed=$(( $(date +%s) - start ))
echo "=================== summary ==================="
echo "elapsed: ${elapsed} s"
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all presets passed: cortex-m7 aarch64 host-debug host; fuzz smoke run passed"
