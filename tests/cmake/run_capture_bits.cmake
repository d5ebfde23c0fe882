# Runs one portable test image (through the cross emulator if any), echoes its output, stores its
# "BITS <name> <hex>" lines in BITS_FILE for the cross-target comparison, and fails on a non-zero
# exit status or a timeout.
# With GOLDEN_DIR (the host, aarch64 and Cortex-M7 presets), the records must also equal the
# golden ones recorded there (GOLDEN_DIR/<name of BITS_FILE>; tests/goldens/README.md).
# Inputs: EXE, EMULATOR (list joined with '|', may be empty), BITS_FILE, TIMEOUT_S, GOLDEN_DIR.
string(REPLACE "|" ";" emulator "${EMULATOR}")
execute_process(COMMAND ${emulator} "${EXE}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT ${TIMEOUT_S})
message("${out}${err}")
string(REGEX MATCHALL "BITS [^\n]*" bits "${out}${err}")
list(JOIN bits "\n" bits_text)
get_filename_component(bits_dir "${BITS_FILE}" DIRECTORY)
file(MAKE_DIRECTORY "${bits_dir}")
if(rc STREQUAL "0")
  file(WRITE "${BITS_FILE}" "${bits_text}\n")
  if(GOLDEN_DIR)
    get_filename_component(name "${BITS_FILE}" NAME)
    if(NOT EXISTS "${GOLDEN_DIR}/${name}")
      message(FATAL_ERROR "no golden bit record ${GOLDEN_DIR}/${name}: record it (tests/goldens/README.md)")
    endif()
    file(READ "${GOLDEN_DIR}/${name}" golden_text)
    if(NOT golden_text STREQUAL "${bits_text}\n")
      message(FATAL_ERROR "bit records differ from the golden ${GOLDEN_DIR}/${name}\n--- golden\n${golden_text}--- this run\n${bits_text}\n")
    endif()
    message("bit records equal the golden ${name}")
  endif()
else()
  file(REMOVE "${BITS_FILE}")
  message(FATAL_ERROR "test image ${EXE} failed: exit status '${rc}'")
endif()
