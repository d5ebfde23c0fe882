# Runs an image twice, each in a fresh folder, and requires byte-identical trace files.
# Inputs: EXE, EMULATOR ('|' list, may be empty), TRACE (file name the image writes), WORK.
string(REPLACE "|" ";" emulator "${EMULATOR}")
foreach(run 1 2)
  file(REMOVE_RECURSE "${WORK}/run${run}")
  file(MAKE_DIRECTORY "${WORK}/run${run}")
  execute_process(COMMAND ${emulator} "${EXE}" WORKING_DIRECTORY "${WORK}/run${run}"
                  OUTPUT_QUIET RESULT_VARIABLE rc TIMEOUT 280)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "run ${run} of ${EXE} failed: exit status '${rc}'")
  endif()
endforeach()
file(SIZE "${WORK}/run1/${TRACE}" size)
if(size EQUAL 0)
  message(FATAL_ERROR "empty trace ${WORK}/run1/${TRACE}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/run1/${TRACE}" "${WORK}/run2/${TRACE}"
                RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "traces of two runs differ: ${WORK}/run1/${TRACE} vs ${WORK}/run2/${TRACE}")
endif()
message("two runs, identical traces of ${size} bytes")
