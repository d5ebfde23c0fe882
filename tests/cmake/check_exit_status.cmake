# Runs EXE (through EMULATOR, '|'-joined) and requires exit status EXPECTED.
string(REPLACE "|" ";" emulator "${EMULATOR}")
execute_process(COMMAND ${emulator} "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 60)
message("${out}${err}")
if(NOT rc STREQUAL "${EXPECTED}")
  message(FATAL_ERROR "exit status '${rc}', expected ${EXPECTED}")
endif()
message("exit status ${rc} as expected")
