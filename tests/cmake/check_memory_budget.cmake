# Memory budget of a Cortex-M7 image: flash = .text + .ARM.exidx + .init_array + .data
# (its load image) <= FLASH_LIMIT; RAM = .data + .bss + .noinit + 64 bytes of fault record (top of
# RAM, outside the sections) + the worst-case stack bound from
# the call graph (scripts/stack_bound.py) <= RAM_LIMIT, and RAM + the step's code (the functions
# reachable from the firmware's tick, scripts/stack_bound.py --step-root) <= TCM_LIMIT: what a core
# keeps in tightly coupled memory. The bound must also fit the image's reserved .stack section.
# Inputs: SIZE (arm-none-eabi-size), NM, IMAGE, PYTHON, STACK_SCRIPT, CALLGRAPH_DIRS ('|' list),
#         FLASH_LIMIT, RAM_LIMIT, TCM_LIMIT (bytes).
execute_process(COMMAND ${SIZE} -A ${IMAGE} OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SIZE} failed on ${IMAGE}")
endif()
foreach(section text ARM.exidx init_array data bss noinit stack)
  string(REPLACE "." "\\." pattern "${section}")
  if(table MATCHES "\n\\.${pattern}[ \t]+([0-9]+)")
    set(s_${section} ${CMAKE_MATCH_1})
  else()
    set(s_${section} 0)
  endif()
endforeach()
string(REPLACE "|" ";" dirs "${CALLGRAPH_DIRS}")
execute_process(COMMAND ${PYTHON} ${STACK_SCRIPT} ${dirs} --limit ${s_stack} --step-root 9PlantLoop+4tickE
                        --image ${IMAGE} --nm ${NM}
                OUTPUT_VARIABLE stack_report RESULT_VARIABLE rc)
message("${stack_report}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stack bound failed or exceeds the reserved stack (${s_stack} bytes)")
endif()
string(REGEX MATCH "worst-case stack bound: ([0-9]+)" _ "${stack_report}")
set(stack_bound ${CMAKE_MATCH_1})
string(REGEX MATCH "step code: ([0-9]+)" _ "${stack_report}")
set(step_code ${CMAKE_MATCH_1})
math(EXPR flash "${s_text} + ${s_ARM.exidx} + ${s_init_array} + ${s_data}")
math(EXPR ram "${s_data} + ${s_bss} + ${s_noinit} + 64 + ${stack_bound}")
math(EXPR flash_k "${flash} / 1024")
math(EXPR ram_k "${ram} / 1024")
math(EXPR tcm "${ram} + ${step_code}")
message("flash ${flash} bytes (${flash_k} KiB) of ${FLASH_LIMIT}; RAM ${ram} bytes (${ram_k} KiB: data ${s_data}, "
        "bss ${s_bss}, noinit ${s_noinit}, stack bound ${stack_bound}) of ${RAM_LIMIT}; stack reserved ${s_stack}; "
        "RAM + step code ${tcm} bytes (step code ${step_code}) of ${TCM_LIMIT}")
if(flash GREATER FLASH_LIMIT OR ram GREATER RAM_LIMIT OR tcm GREATER TCM_LIMIT)
  message(FATAL_ERROR "memory budget exceeded")
endif()
