# Runs one portable test image (through the cross emulator if any), echoes its output, stores its
# "BITS <name> <hex>" lines in BITS_FILE for the cross-target comparison, and fails on a non-zero
# exit status or a timeout.
# Inputs: EXE, EMULATOR (list joined with '|', may be empty), BITS_FILE, TIMEOUT_S.
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
else()
  file(REMOVE "${BITS_FILE}")
  message(FATAL_ERROR "test image ${EXE} failed: exit status '${rc}'")
endif()
