# Toolchain: ARM Cortex-M7, bare metal, double-precision FPU (FPv5-D16), hard-float ABI.
# Board: ARM MPS2 with the AN500 FPGA image; tests run under qemu-system-arm -M mps2-an500.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(BELTSIM_PLATFORM mps2_an500 CACHE STRING "HAL backend" FORCE)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Bare metal cannot link a test executable without our startup code and linker script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_cpu "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard -mthumb")
# -ffp-contract=off: no fused multiply-add, so results match the other targets bit for bit.
set(CMAKE_C_FLAGS_INIT "${_cpu} -ffp-contract=off -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${_cpu} -ffp-contract=off -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${_cpu}")
# Own startup (hal/mps2_an500), newlib for libm/string, librdimon for semihosting I/O and exit.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_cpu} -nostartfiles --specs=nano.specs -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)

# Every test executable is an ELF image booted by QEMU; semihosting carries its output and exit status.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-system-arm -M mps2-an500 -nographic -monitor none -serial null
    -semihosting-config enable=on,target=native -kernel)
