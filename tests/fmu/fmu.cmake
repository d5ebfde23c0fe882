# An FMU's library dlopen'ed next to the firmware plant by the program EXE (from SOURCE, built for
# the FMU FMU_ID with BELTSIM_FMU_PC_CONFIG=CONFIG) on every Linux preset that builds it: the test
# TEST records the trace's BITS and, on the host, the test COMPARE compares them with aarch64's.
function(beltsim_fmu_trace exe source fmu_id config test compare)
  add_executable(${exe} ${source})
  add_dependencies(${exe} ${fmu_id}_fmu)
  target_include_directories(${exe} PRIVATE support "${CMAKE_SOURCE_DIR}/firmware/fmu"
                             "${CMAKE_BINARY_DIR}/generated/fmu_scenario")
  target_link_libraries(${exe} PRIVATE beltsim_model ${CMAKE_DL_LIBS})
  target_compile_definitions(${exe} PRIVATE BELTSIM_FMU_PC_CONFIG=${config}
    BELTSIM_FMU_LIBRARY="${CMAKE_BINARY_DIR}/firmware/fmu/${fmu_id}/binaries/${BELTSIM_FMU_PLATFORM}/${fmu_id}.so")
  # Under qemu-aarch64 the accessory drive's trace (120 elements, 1500 steps) takes about 100 s on
  # the 2-core VM beside the other tests: emulated runs get twice the time.
  set(timeout ${BELTSIM_TEST_TIMEOUT})
  if(_emulator)
    math(EXPR timeout "2 * ${BELTSIM_TEST_TIMEOUT}")
  endif()
  math(EXPR ctest_timeout "${timeout} + 30")
  add_test(NAME ${test}
           COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${exe}> "-DEMULATOR=${_emulator}"
                   -DBITS_FILE=${BELTSIM_BITCHECK_DIR}/${BELTSIM_BITCHECK_TAG}/${test}.txt
                   -DTIMEOUT_S=${timeout} ${BELTSIM_GOLDEN_ARGS}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/run_capture_bits.cmake)
  set_tests_properties(${test} PROPERTIES TIMEOUT ${ctest_timeout} LABELS fmu)
  if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
    add_test(NAME ${compare}
             COMMAND ${CMAKE_COMMAND} -DBITCHECK_DIR=${BELTSIM_BITCHECK_DIR}
                     "-DTAGS=${BELTSIM_BITCHECK_TAG}|aarch64" "-DNAMES=${test}"
                     -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/compare_bits.cmake)
    set_tests_properties(${compare} PROPERTIES DEPENDS ${test} SKIP_REGULAR_EXPRESSION "BELTSIM_SKIP")
  endif()
endfunction()

# The microcontroller FMU (host, host-debug with ASan/UBSan, aarch64 under qemu-aarch64).
if(TARGET beltsim_fmu_mcu)
  beltsim_fmu_trace(fmu_dlopen_trace fmu/fmu_dlopen_trace.cpp beltsim_mcu 0
                    fmu_library_matches_the_firmware_plant fmu_library_bits_host_equals_aarch64)
endif()

# The PC FMU (16 eulerian elements at 1e-4 s: 10,000 steps of each).
if(TARGET beltsim_fmu_pc)
  beltsim_fmu_trace(fmu_dlopen_trace_pc fmu/fmu_dlopen_trace.cpp beltsim_pc 1
                    fmu_pc_library_matches_the_firmware_plant fmu_pc_library_bits_host_equals_aarch64)
endif()

# The FMU of a user's scenario (BELTSIM_FMU_SCENARIO; the host and aarch64 presets build the
# accessory drive's) next to the firmware plant built from the same file.
if(TARGET beltsim_fmu_scenario)
  beltsim_fmu_trace(fmu_scenario_trace fmu/fmu_scenario_trace.cpp ${BELTSIM_FMU_SCENARIO_ID} 2
                    fmu_scenario_matches_the_firmware_plant fmu_scenario_bits_host_equals_aarch64)
  if(NOT CMAKE_CROSSCOMPILING AND BELTSIM_FMU_SCENARIO MATCHES "accessory_drive_eulerian\\.toml$")
    add_test(NAME fmu_scenario_outside_importer
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fmu/fmusim_scenario.sh ${CMAKE_SOURCE_DIR}
                     ${CMAKE_BINARY_DIR}/firmware/fmu/${BELTSIM_FMU_SCENARIO_ID}.fmu ${CMAKE_CURRENT_BINARY_DIR}/fmusim)
    set_tests_properties(fmu_scenario_outside_importer PROPERTIES TIMEOUT 600 LABELS fmu SKIP_RETURN_CODE 77
                         RESOURCE_LOCK fmusim)
  endif()
endif()

# A scenario the FMU cannot be built from: one line, nothing written (the configure step included).
if(NOT CMAKE_CROSSCOMPILING AND NOT BELTSIM_BARE_METAL)
  add_test(NAME fmu_scenario_bad_input
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/fmu/scenario_fmu_bad_input.py ${CMAKE_SOURCE_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/fmu_scenario_bad_input ${CMAKE_GENERATOR})
  set_tests_properties(fmu_scenario_bad_input PROPERTIES TIMEOUT 300 LABELS "fmu;cli")
endif()

# The FMUs as an importer sees them (issue 17): tests/fmu/test_fmu.py unzips both, checks
# modelDescription.xml, loads the libraries with ctypes and compares them bit for bit with the
# firmware plant (fmu_reference_trace). x86-64 host only: Python's ctypes cannot load an aarch64
# library, and an ASan-instrumented library needs the sanitizer runtime preloaded into Python (the
# FMU API runs under ASan/UBSan in the fuzz target fuzz_fmu instead).
if(CMAKE_CROSSCOMPILING OR CMAKE_CXX_FLAGS MATCHES "sanitize" OR NOT TARGET beltsim_fmu_mcu)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(FATAL_ERROR "python3 not found: install the Debian package python3 (scripts/setup.sh does)")
endif()

add_executable(fmu_reference_trace fmu/fmu_reference_trace.cpp)
target_include_directories(fmu_reference_trace PRIVATE support "${CMAKE_SOURCE_DIR}/firmware")
target_link_libraries(fmu_reference_trace PRIVATE beltsim_model)

set(_scenario_fmu_arg "")
if(TARGET beltsim_fmu_scenario AND BELTSIM_FMU_SCENARIO MATCHES "accessory_drive_eulerian\\.toml$")
  set(_scenario_fmu_arg --scenario ${CMAKE_BINARY_DIR}/firmware/fmu/${BELTSIM_FMU_SCENARIO_ID}.fmu)
endif()
# Three tests of one script, so that its two compilations of an FMU's sources/ (about 60 s each) run
# beside other tests: the descriptions, state, tunables, instances and bad input; the traces against
# the firmware plant; the accessory drive's FMU.
foreach(_part IN ITEMS ":ModelDescription State Tunable Instances BadInput" "_traces:Trace" "_scenario:ScenarioFmu")
  string(REPLACE ":" ";" _part "${_part}")
  list(GET _part 0 _suffix)
  list(GET _part 1 _classes)
  separate_arguments(_classes)
  if(_suffix STREQUAL "_scenario" AND NOT _scenario_fmu_arg)
    continue()
  endif()
  add_test(NAME fmu_importer${_suffix}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/fmu/test_fmu.py
                   --mcu ${CMAKE_BINARY_DIR}/firmware/fmu/beltsim_mcu.fmu
                   --pc ${CMAKE_BINARY_DIR}/firmware/fmu/beltsim_pc.fmu ${_scenario_fmu_arg}
                   --reference $<TARGET_FILE:fmu_reference_trace>
                   --work ${CMAKE_CURRENT_BINARY_DIR}/fmu_work${_suffix} ${_classes})
  set_tests_properties(fmu_importer${_suffix} PROPERTIES TIMEOUT 900 LABELS fmu)
endforeach()

# The microcontroller FMU through fmusim 0.0.39, an importer this project did not write (issue 35):
# schema and functions checked at load, a run, a state file saved and resumed. Skipped (77) where
# ../shared/tools is absent.
add_test(NAME fmu_outside_importer_state_file
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fmu/fmusim_state_file.sh ${CMAKE_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR}/firmware/fmu/beltsim_mcu.fmu ${CMAKE_CURRENT_BINARY_DIR}/fmusim)
set_tests_properties(fmu_outside_importer_state_file PROPERTIES TIMEOUT 600 LABELS fmu SKIP_RETURN_CODE 77
                     RESOURCE_LOCK fmusim)
