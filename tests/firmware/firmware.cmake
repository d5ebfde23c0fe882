# Firmware images under test (every target): the application loop with the scripted command
# sequence, and test builds that force a fault. Each image checks its own outcome (exit status:
# see firmware/main.cpp) and prints BITS records of its output trace.
#
# On the board the images run with QEMU's -icount shift=1,sleep=off: one instruction = 2 ns of
# virtual time (a 500 MIPS core, about a Cortex-M7 at 480 MHz), deterministic, and the SysTick
# clock then measures instructions. Linux images run free (virtual time) unless a tick is needed.
set(_fw_emulator "${_emulator}")
if(BELTSIM_BARE_METAL)
  set(_qemu ${CMAKE_CROSSCOMPILING_EMULATOR})
  list(FIND _qemu "-kernel" _kernel_at)
  list(INSERT _qemu ${_kernel_at} "-icount" "shift=1,sleep=off")
  list(JOIN _qemu "|" _fw_emulator)
  set(_loop_tick 1000000)  # the real 1 kHz tick: overruns then measure the instruction budget
else()
  set(_loop_tick 0)
endif()

set(BELTSIM_FIRMWARE_TEST_IMAGES "" CACHE INTERNAL "")
# beltsim_add_firmware_test(name COMPARE_BITS|LOCAL definitions...)
function(beltsim_add_firmware_test name compare)
  beltsim_add_firmware(${name} mcu BELTSIM_FW_TRACE="${name}.bin" ${ARGN})
  if(compare STREQUAL "COMPARE_BITS")
    set(_bits ${BELTSIM_BITCHECK_DIR}/${BELTSIM_BITCHECK_TAG}/${name}.txt)
    set(BELTSIM_PORTABLE_TESTS ${BELTSIM_PORTABLE_TESTS} ${name} CACHE INTERNAL "")
    set(_golden ${BELTSIM_GOLDEN_ARGS})
  else()
    set(_bits ${CMAKE_CURRENT_BINARY_DIR}/${name}_bits.txt)
    set(_golden "")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> "-DEMULATOR=${_fw_emulator}"
                   -DBITS_FILE=${_bits} -DTIMEOUT_S=${BELTSIM_TEST_TIMEOUT} ${_golden}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_capture_bits.cmake)
  math(EXPR _ctest_timeout "${BELTSIM_TEST_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${_ctest_timeout} LABELS firmware)
  set(BELTSIM_FIRMWARE_TEST_IMAGES ${BELTSIM_FIRMWARE_TEST_IMAGES} ${name} CACHE INTERNAL "")
endfunction()

# The microcontroller configuration for 0.6 s: speed ramp 0 -> 12 rad/s, 25 N m load step at
# 0.45 s, six bad frames (rejected, counted). Its trace hash must agree on all targets.
beltsim_add_firmware_test(firmware_scripted_run COMPARE_BITS BELTSIM_FW_TICKS=600 BELTSIM_FW_TICK_NS=${_loop_tick}
                          BELTSIM_FW_STEP_LOG=600)

# The same with P1 wet from 0.5 s (an injected friction fault, mu 0.5 -> 0.3 over 0.05 s;
# docs/injected_faults.md) and, from then on, a dragging load bearing (5 N m, 0.2 N m s/rad on P2),
# noise on span 1's load cell and dropouts of P2's encoder (the sensors' random draws): the belt
# starts to slide under the 25 N m load; its trace,
# readings included, must agree on all targets too, and the run must end without a fault.
beltsim_add_firmware_test(firmware_friction_fault_run COMPARE_BITS BELTSIM_FW_TICKS=600
                          BELTSIM_FW_TICK_NS=${_loop_tick} BELTSIM_FW_FRICTION_FAULT_START=0.5
                          BELTSIM_FW_FRICTION_FAULT_VALUE=0.3)
set_tests_properties(firmware_friction_fault_run PROPERTIES LABELS "firmware;faults")

# Forced non-convergence: one Newton iteration per solve cannot meet the reference tolerance
# (1e-8, set by the hook) once the belt moves; after 10 flagged steps in a row the loop must be in the safe state (fault 4).
beltsim_add_firmware_test(firmware_forced_nonconvergence_enters_safe_state COMPARE_BITS
                          BELTSIM_FW_TICKS=120 BELTSIM_FW_TICK_NS=${_loop_tick} BELTSIM_FW_MAX_NEWTON=1
                          BELTSIM_FW_EXPECT_FAULT=4)

# Forced overrun: tick 10 is stretched by 50 ms with a 20 ms tick. Policy "safe state": fault 5;
# policy "count and continue": at least one overrun counted, no fault.
beltsim_add_firmware_test(firmware_overrun_enters_safe_state LOCAL
                          BELTSIM_FW_TICKS=20 BELTSIM_FW_TICK_NS=20000000 BELTSIM_FW_DELAY_TICK=10
                          BELTSIM_FW_DELAY_NS=50000000 BELTSIM_FW_OVERRUN_SAFE=1 BELTSIM_FW_EXPECT_FAULT=5)
beltsim_add_firmware_test(firmware_overrun_is_counted LOCAL
                          BELTSIM_FW_TICKS=20 BELTSIM_FW_TICK_NS=20000000 BELTSIM_FW_DELAY_TICK=10
                          BELTSIM_FW_DELAY_NS=50000000 BELTSIM_FW_OVERRUN_SAFE=0)

# A controller that falls silent in lockstep: no command frame ever arrives (no plant input), so
# after the 200 ms wait limit the run must end in the safe state "controller silent" (fault 6);
# an unbounded wait would hang until the test's timeout.
beltsim_add_firmware_test(firmware_lockstep_silent_controller_enters_safe_state LOCAL
                          BELTSIM_FW_TICKS=20 BELTSIM_FW_SCRIPTED=0 BELTSIM_FW_LOCKSTEP=1
                          BELTSIM_FW_LOCKSTEP_TIMEOUT_MS=200 BELTSIM_FW_EXPECT_FAULT=6)
set_tests_properties(firmware_lockstep_silent_controller_enters_safe_state PROPERTIES TIMEOUT 60)

# Run-to-run determinism on Linux targets: two runs, byte-identical trace files.
if(NOT BELTSIM_BARE_METAL)
  add_test(NAME firmware_runs_are_identical
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:firmware_scripted_run> "-DEMULATOR=${_fw_emulator}"
                   -DTRACE=firmware_scripted_run.bin -DWORK=${CMAKE_CURRENT_BINARY_DIR}/firmware_twice
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_twice_compare.cmake)
  set_tests_properties(firmware_runs_are_identical PROPERTIES TIMEOUT 600 LABELS firmware)
endif()

# The watchdog (board only): tick 5 hangs for 500 ms, longer than the 200 ms watchdog. Its NMI
# records the fault in the .noinit record and resets the board; the image boots again, finds the
# record (one warm reset, fault 0xD06) and stops with status 3.
if(BELTSIM_BARE_METAL)
  beltsim_add_firmware(firmware_watchdog_resets_a_hung_loop mcu BELTSIM_FW_TRACE="" BELTSIM_FW_TICKS=20
                       BELTSIM_FW_TICK_NS=20000000 BELTSIM_FW_DELAY_TICK=5 BELTSIM_FW_DELAY_NS=500000000)
  set(BELTSIM_FIRMWARE_TEST_IMAGES ${BELTSIM_FIRMWARE_TEST_IMAGES} firmware_watchdog_resets_a_hung_loop CACHE INTERNAL "")
  add_test(NAME firmware_watchdog_resets_a_hung_loop
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:firmware_watchdog_resets_a_hung_loop> "-DEMULATOR=${_fw_emulator}"
                   -DEXPECTED=3 -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/check_exit_status.cmake)
  set_tests_properties(firmware_watchdog_resets_a_hung_loop PROPERTIES TIMEOUT 120 LABELS firmware
                       PASS_REGULAR_EXPRESSION "resets 1, last fault 3334")
endif()
