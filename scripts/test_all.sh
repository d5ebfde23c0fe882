#!/usr/bin/env bash
# Builds every preset and runs all tests: cortex-m7 (qemu-system-arm), aarch64 (qemu-aarch64),
# host-debug (ASan/UBSan), then host, whose last test compares the cross-target bit records.
# Exits non-zero if any configure, build or test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

start=$(date +%s)
export BELTSIM_REQUIRE_ALL_TARGETS=1
rm -rf build/bitcheck
failed=()
for preset in cortex-m7 aarch64 host-debug host; do
  echo "=================== preset ${preset} ==================="
  if cmake --preset "$preset" >/dev/null \
     && cmake --build --preset "$preset" \
     && ctest --preset "$preset"; then
    echo "preset ${preset}: OK"
  else
    echo "preset ${preset}: FAILED"
    failed+=("$preset")
  fi
done
elapsed=$(( $(date +%s) - start ))
echo "=================== summary ==================="
echo "elapsed: ${elapsed} s"
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "FAILED presets: ${failed[*]}"
  exit 1
fi
echo "all presets passed: cortex-m7 aarch64 host-debug host"
