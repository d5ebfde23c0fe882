#!/usr/bin/env bash
# The main job. Today: builds the Cortex-M7 firmware image and boots it in QEMU (mps2-an500,
# semihosting), printing what it ran. The default belt-drive scenario replaces this once the
# belt-drive system exists (issue 5).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset cortex-m7 >/dev/null
cmake --build --preset cortex-m7 --target beltsim_firmware
image=build/cortex-m7/firmware/beltsim_firmware.elf
cmd=(qemu-system-arm -M mps2-an500 -nographic -monitor none -serial null
     -semihosting-config enable=on,target=native -kernel "$image")
echo "running: ${cmd[*]}"
timeout 120 "${cmd[@]}"
echo "firmware exited with status $?"
