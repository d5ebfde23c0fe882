# The FMUs as an importer sees them (issue 17): tests/fmu/test_fmu.py unzips both, checks
# modelDescription.xml, loads the libraries with ctypes and compares them bit for bit with the
# firmware plant (fmu_reference_trace). x86-64 host only: Python's ctypes cannot load an aarch64
# library, and an ASan-instrumented library needs the sanitizer runtime preloaded into Python (the
# FMU API runs under ASan/UBSan in the fuzz target fuzz_fmu instead).
if(CMAKE_CROSSCOMPILING OR CMAKE_CXX_FLAGS MATCHES "sanitize" OR NOT BELTSIM_FMU_FILES)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(FATAL_ERROR "python3 not found: install the Debian package python3 (scripts/setup.sh does)")
endif()

add_executable(fmu_reference_trace fmu/fmu_reference_trace.cpp)
target_include_directories(fmu_reference_trace PRIVATE support "${CMAKE_SOURCE_DIR}/firmware")
target_link_libraries(fmu_reference_trace PRIVATE beltsim_model)

add_test(NAME fmu_importer
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/fmu/test_fmu.py
                 --mcu ${CMAKE_BINARY_DIR}/firmware/fmu/beltsim_mcu.fmu
                 --pc ${CMAKE_BINARY_DIR}/firmware/fmu/beltsim_pc.fmu
                 --reference $<TARGET_FILE:fmu_reference_trace>
                 --work ${CMAKE_CURRENT_BINARY_DIR}/fmu_work)
set_tests_properties(fmu_importer PROPERTIES TIMEOUT 900 LABELS fmu)
