#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, if any is missing.
# Usage: scripts/setup.sh              everything: host, cross targets, QEMU, fuzzing (test command)
#        scripts/setup.sh --host-only  what the host simulator's build needs (the main job)
set -euo pipefail

# command-or-file -> Debian package. The host preset configures its tests and benchmarks too,
# so googletest and Google Benchmark are host packages.
declare -A need=(
  [cmake]=cmake
  [ninja]=ninja-build
  [g++]=g++
  [/usr/include/eigen3/Eigen/Core]=libeigen3-dev
  [/usr/src/googletest/googletest/CMakeLists.txt]=googletest
  [/usr/include/benchmark/benchmark.h]=libbenchmark-dev
  [python3]=python3
  [/usr/include/toml++/toml.h]=libtomlplusplus-dev
  [/usr/include/CLI/CLI.hpp]=libcli11-dev
  [gnuplot]=gnuplot-nox
)
if [[ "${1:-}" != "--host-only" ]]; then
  need+=(
    [arm-none-eabi-g++]=gcc-arm-none-eabi
    [/usr/lib/arm-none-eabi/newlib/thumb/v7e-m+dp/hard/librdimon.a]=libnewlib-arm-none-eabi
    [/usr/lib/arm-none-eabi/newlib/thumb/v7e-m+dp/hard/libstdc++.a]=libstdc++-arm-none-eabi-newlib
    [aarch64-linux-gnu-g++]=g++-aarch64-linux-gnu
    [qemu-system-arm]=qemu-system-arm
    [qemu-aarch64]=qemu-user
    [clang++]=clang
    [/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a]=libclang-rt-14-dev
    # fmusim, the outside FMI importer of the FMU tests (../shared/tools/fmusim-0.0.39)
    [/usr/include/zlib.h]=zlib1g-dev
    [/usr/include/libxml2/libxml/parser.h]=libxml2-dev
    [/usr/include/minizip/unzip.h]=libminizip-dev
    [/usr/include/cvode/cvode.h]=libsundials-dev
    # sweeps on a Dask cluster (scripts/beltsim_sweep.py --scheduler; the sweep test's LocalCluster)
    [/usr/lib/python3/dist-packages/distributed/__init__.py]=python3-distributed
  )
fi

missing=()
for item in "${!need[@]}"; do
  if [[ "$item" == /* ]]; then
    [[ -e "$item" ]] || missing+=("${need[$item]}")
  else
    command -v "$item" >/dev/null 2>&1 || missing+=("${need[$item]}")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all required packages present"
  exit 0
fi

mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "setup: missing Debian packages: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: ERROR: not root, cannot install. Run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: ERROR: apt-get not found (this project expects Debian 12). Install: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
