cmake_policy(SET CMP0054 NEW)
# Command-line behaviour of beltsim (issue 5, "Bad input" and "Determinism").
# Inputs: BELTSIM (executable), SCENARIO (a valid scenario file), WORK (scratch folder), MODE.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(expect_failure description expected_regex)
  # ARGN: arguments of beltsim
  execute_process(COMMAND "${BELTSIM}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${description}: beltsim succeeded, expected an error")
  endif()
  if(NOT "${err}" MATCHES "${expected_regex}")
    message(FATAL_ERROR "${description}: message does not match '${expected_regex}':\n${err}")
  endif()
  message("${description}: rejected as expected: ${err}")
endfunction()

function(write_scenario path)
  # Copies SCENARIO, then appends the given lines (ARGN) after replacing the marker lines.
  file(READ "${SCENARIO}" text)
  set(extra "")
  foreach(line IN LISTS ARGN)
    string(APPEND extra "${line}\n")
  endforeach()
  file(WRITE "${path}" "${text}${extra}")
endfunction()

if(MODE STREQUAL "bad_input")
  # 1. Unknown key: named with file and line.
  file(READ "${SCENARIO}" text)
  string(REPLACE "[solver]\n" "[solver]\nstep_sise = 1e-4\n" bad "${text}")
  file(WRITE "${WORK}/unknown_key.toml" "${bad}")
  expect_failure("unknown key" "unknown_key.toml:[0-9]+: key 'solver.step_sise': unknown key"
                 run "${WORK}/unknown_key.toml" --out "${WORK}/out1")
  # 2. Wrong type.
  string(REPLACE "segments_per_element = 4" "segments_per_element = \"four\"" bad "${text}")
  file(WRITE "${WORK}/wrong_type.toml" "${bad}")
  expect_failure("wrong type" "wrong_type.toml:[0-9]+: key 'contact.segments_per_element': expected an integer"
                 run "${WORK}/wrong_type.toml" --out "${WORK}/out2")
  # 3. Negative step through --set.
  expect_failure("negative step" "key 'solver.step_size': out of range"
                 run "${SCENARIO}" --set solver.step_size=-1e-4 --out "${WORK}/out3")
  # 3b. [[pulley]] entries by index (issue 36: one key syntax for --set and sweeps): an index past
  # the file's pulleys is refused naming the key and the count; a profile field takes effect (the
  # motor's speed profile made constant at 5 rad/s: the run's last motor speed is 5).
  expect_failure("pulley index out of range" "key 'pulley\\[2\\].inertia': the file has 2 \\[\\[pulley\\]\\] entries"
                 run "${SCENARIO}" --set pulley[2].inertia=1 --out "${WORK}/out3b")
  execute_process(COMMAND "${BELTSIM}" run "${SCENARIO}" --set belt.elements=24 --set solver.end_time=0.002
                          --set pulley[0].speed.shape=constant --set pulley[0].speed.value=5 --quiet
                          --out "${WORK}/out3c" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  file(READ "${WORK}/out3c/summary.json" _summary)
  string(JSON _omega GET "${_summary}" omega 0)
  if(NOT rc EQUAL 0 OR NOT _omega EQUAL 5)
    message(FATAL_ERROR "pulley[0].speed override: exit ${rc}, motor speed ${_omega} (expected 5)")
  endif()
  # 4. Unsupported element count lists the supported ones.
  expect_failure("unsupported element count" "key 'belt.elements': 50 is not compiled in; supported element counts: [0-9, ]*24, [0-9, ]*60"
                 run "${SCENARIO}" --set belt.elements=50 --out "${WORK}/out4")
  # 5. Malformed TOML.
  file(WRITE "${WORK}/malformed.toml" "[belt\nelements = 60\n")
  expect_failure("malformed file" "malformed.toml:1:" run "${WORK}/malformed.toml" --out "${WORK}/out5")
  # 5b. A table header "[" and a line break: an error, not toml++'s assert() (found by fuzz_scenario).
  file(WRITE "${WORK}/open_header.toml" "[\n[pulley]]\n")
  expect_failure("open table header" "open_header.toml:1: " run "${WORK}/open_header.toml" --out "${WORK}/out5b")
  # 5c. A non-ASCII character outside strings and comments: an error, not undefined behaviour in
  #     toml++ (UBSan in host-debug; found by fuzz_scenario).
  file(WRITE "${WORK}/non_ascii.toml" "[belt]\nelements = 60 é\n")
  expect_failure("non-ASCII character" "non_ascii.toml:2: " run "${WORK}/non_ascii.toml" --out "${WORK}/out5c")
  # 5d-5h. Pulleys the belt cannot run around (issue 16): named by key and line where one pulley
  #     is at fault. A third pulley appended to the two of SCENARIO (line 1 of the appended text
  #     is the file's last line + 1).
  write_scenario("${WORK}/overlap.toml" "[[pulley]]" "name = \"P3\"" "centre = [0.05, 0.0]" "radius = 0.05" "inertia = 0.01")
  expect_failure("overlapping pulleys" "overlap.toml:[0-9]+: key 'pulley\\[2\\]' \\(P3\\): overlaps pulley\\[0\\] \\(P1\\)"
                 run "${WORK}/overlap.toml" --out "${WORK}/out5d")
  write_scenario("${WORK}/wrong_side.toml" "[[pulley]]" "name = \"P3\"" "side = -1" "centre = [0.157, -0.3]"
                 "radius = 0.03" "inertia = 0.01")
  expect_failure("back-side pulley on the wrong side" "wrong_side.toml:[0-9]+: key 'pulley\\[2\\]' \\(P3\\): a back-side pulley"
                 run "${WORK}/wrong_side.toml" --out "${WORK}/out5e")
  write_scenario("${WORK}/inside.toml" "[[pulley]]" "name = \"P3\"" "centre = [0.157, 0.0]" "radius = 0.03" "inertia = 0.01")
  expect_failure("a path that crosses itself" "inside.toml: key 'pulley': the path around the pulleys in this order crosses itself"
                 run "${WORK}/inside.toml" --out "${WORK}/out5f")
  # A back-side idler P4 between P3 (below the drive) and P1, placed on the span P2 -> P3.
  write_scenario("${WORK}/crossing.toml" "[[pulley]]" "name = \"P3\"" "centre = [0.157, -0.35]" "radius = 0.03"
                 "inertia = 0.01" "[[pulley]]" "name = \"P4\"" "centre = [0.28, -0.2]" "radius = 0.03" "inertia = 0.01"
                 "side = -1")
  expect_failure("a span through a pulley" "crossing.toml:[0-9]+: key 'pulley\\[3\\]' \\(P4\\): the span from pulley\\[1\\] to pulley\\[2\\] runs through this pulley"
                 run "${WORK}/crossing.toml" --out "${WORK}/out5h")
  # 5i-5j. A tensioner whose spring cannot hold the belt (wound up the wrong way: it pulls the
  #     pulley out of the belt), and a tensioner without its arm.
  write_scenario("${WORK}/tensioner_away.toml" "[[pulley]]" "name = \"T\"" "kind = \"tensioner\"" "centre = [0.157, -0.3]"
                 "radius = 0.03" "inertia = 0.01" "mass = 0.3" "[pulley.arm]" "pivot = [0.257, -0.3]"
                 "stiffness = 30.0" "preload_angle = -0.3")
  expect_failure("tensioner spring pushing away" "tensioner_away.toml:[0-9]+: key 'pulley\\[2\\]' \\(T\\): key 'arm.preload_angle': the spring .* does not push the pulley into the belt"
                 run "${WORK}/tensioner_away.toml" --out "${WORK}/out5i")
  write_scenario("${WORK}/tensioner_no_arm.toml" "[[pulley]]" "name = \"T\"" "kind = \"tensioner\"" "centre = [0.157, -0.3]"
                 "radius = 0.03" "inertia = 0.01" "mass = 0.3")
  expect_failure("tensioner without arm" "tensioner_no_arm.toml:[0-9]+: key 'pulley\\[2\\].arm': a tensioner needs"
                 run "${WORK}/tensioner_no_arm.toml" --out "${WORK}/out5j")
  # 5k. The fixed-cost stepping with a combination it does not support (point-wise normals).
  expect_failure("fixed-cost stepping with point-wise normals"
                 "key 'solver.stepping': fixed_cost needs segment normals \\(contact.segment_normals = true\\)"
                 run "${SCENARIO}" --set solver.stepping=fixed_cost --set contact.segment_normals=false
                 --set contact.segment_gap=chord --out "${WORK}/out5k")
  # 5k'. Point-wise normals with the arc gap (issue 33): refused by the key that asks for them.
  expect_failure("arc gap with point-wise normals"
                 "key 'contact.segment_gap': the arc gap is defined for segment normals only"
                 run "${SCENARIO}" --set contact.segment_normals=false --set contact.segment_gap=arc --out "${WORK}/out5k2")
  # 5k''. A stick memory (issue 33) with what it does not support: the continuous friction law,
  # which keeps no anchors.
  expect_failure("stick memory with the continuous friction law"
                 "key 'friction.stick_memory': the continuous friction law keeps no sticking positions"
                 run "${SCENARIO}" --set solver.stepping=reference --set friction.law=continuous
                 --set friction.stick_memory=segment --out "${WORK}/out5k4")
  if(EXISTS "${WORK}/out5k4")
    message(FATAL_ERROR "a refused stick memory wrote outputs")
  endif()
  # 5l. More iterations with the committed states than iterations.
  expect_failure("fixed-cost stepping with too many frozen-state iterations"
                 "key 'solver.frozen_state_iterations': must be 0..fixed_newton_iterations \\(2\\)"
                 run "${SCENARIO}" --set solver.stepping=fixed_cost --set solver.fixed_newton_iterations=2
                 --set solver.frozen_state_iterations=3 --out "${WORK}/out5l")
  # 5m. A partial re-factorization with a matrix refreshed over several steps.
  expect_failure("fixed-cost stepping with re-factorized pairs and a sliced refresh"
                 "key 'solver.refactor_pairs': needs refresh_steps = 1 \\(the matrix rebuilt after every step\\)"
                 run "${SCENARIO}" --set solver.stepping=fixed_cost --set solver.refresh_steps=4
                 --set solver.refactor_pairs=6 --out "${WORK}/out5m")
  # 5n. An acceleration limit on a pulley that no motor drives.
  write_scenario("${WORK}/idler_acceleration.toml" "[[pulley]]" "name = \"idler\"" "kind = \"fixed_axis\""
                 "centre = [0.157, 0.3]" "radius = 0.03" "inertia = 0.01" "max_acceleration = 500.0")
  expect_failure("acceleration limit on an idler"
                 "idler_acceleration.toml:[0-9]+: key 'pulley\\[2\\].max_acceleration': only a motor \\(kind = \"speed\" or \"torque\"\\) has an acceleration limit"
                 run "${WORK}/idler_acceleration.toml" --out "${WORK}/out5n")
  # 5n2. The eulerian mesh's grading on the material mesh.
  expect_failure("eulerian grading on the material mesh"
                 "key 'belt.wrap_density': only the eulerian mesh \\(mesh = \"eulerian\"\\) has it"
                 run "${SCENARIO}" --set belt.wrap_density=2 --out "${WORK}/out5n2")
  # 5n3. The eulerian mesh's passes with pair updates on the material mesh.
  expect_failure("post-Newton passes on the material mesh"
                 "key 'solver.post_newton_passes': applies to the eulerian mesh only \\(belt.mesh = \"eulerian\"\\)"
                 run "${SCENARIO}" --set solver.stepping=fixed_cost --set solver.post_newton_passes=3
                 --out "${WORK}/out5n3")
  # 5o. The eulerian mesh (belt.mesh = "eulerian", docs/model_element.md §2.11) with what it does
  # not run: the material mesh's switch updates in its fixed-cost stepping, an open belt, a start at
  # rest, an element count not compiled for it. Each named by its key and line.
  # EULERIAN_COUNTS: the build's eulerian element counts (the sanitizer preset compiles none).
  file(READ "${SCENARIO}" text)
  if(",${EULERIAN_COUNTS}," MATCHES ",24,")
    string(REPLACE "[belt]\n" "[belt]\nmesh = \"eulerian\"\n" eulerian "${text}")
    file(WRITE "${WORK}/eulerian_fixed_cost.toml" "${eulerian}")
    expect_failure("eulerian mesh with the material mesh's switch columns"
                   "eulerian_fixed_cost.toml:[0-9]+: key 'solver.switch_columns': applies to the material mesh only"
                   run "${WORK}/eulerian_fixed_cost.toml" --out "${WORK}/out5o")
    string(REPLACE "[belt]\n" "[belt]\nmesh = \"eulerian\"\nclosed = false\n" bad "${text}")
    file(WRITE "${WORK}/eulerian_open.toml" "${bad}")
    expect_failure("eulerian mesh on an open belt"
                   "eulerian_open.toml:11: key 'belt.mesh': \"eulerian\" needs a closed belt"
                   run "${WORK}/eulerian_open.toml" --out "${WORK}/out5p")
    file(WRITE "${WORK}/eulerian_rest.toml" "${eulerian}[static]\nstart = \"rest\"\n")
    expect_failure("eulerian mesh started at rest"
                   "eulerian_rest.toml:[0-9]+: key 'static.start': \"rest\" needs the material mesh"
                   run "${WORK}/eulerian_rest.toml" --set solver.stepping=reference --out "${WORK}/out5q")
    string(REPLACE "elements = 24" "elements = 30" bad "${eulerian}")
    file(WRITE "${WORK}/eulerian_count.toml" "${bad}")
    expect_failure("eulerian mesh of a count not compiled for it"
                   "eulerian_count.toml:[0-9]+: key 'belt.elements': 30 is not compiled in; supported element counts of the eulerian mesh: [0-9, ]*24"
                   run "${WORK}/eulerian_count.toml" --set solver.stepping=reference --out "${WORK}/out5r")
  else()
    message("eulerian mesh cases skipped: this build compiles no eulerian mesh of 24 elements")
  endif()
  string(FIND "${text}" "[[pulley]]" last REVERSE)  # P2's table, up to [solver]
  string(FIND "${text}" "[solver]" solver)
  string(SUBSTRING "${text}" 0 ${last} head)
  string(SUBSTRING "${text}" ${solver} -1 tail)
  file(WRITE "${WORK}/one_pulley.toml" "${head}${tail}")
  expect_failure("one pulley" "one_pulley.toml: key 'pulley': a closed belt needs at least 2 pulleys \\(got 1\\)"
                 run "${WORK}/one_pulley.toml" --out "${WORK}/out5g")
  # Nothing was written for any rejected run.
  foreach(i 1 2 3 4 5 5b 5c 5d 5e 5f 5g 5h 5i 5j 5k 5k2 5o 5p 5q 5r 5s)
    if(EXISTS "${WORK}/out${i}")
      message(FATAL_ERROR "a rejected run created its output folder out${i}")
    endif()
  endforeach()
  # 6. An existing, non-empty output folder is refused and left alone.
  file(WRITE "${WORK}/old/summary.json" "old")
  expect_failure("non-empty output" "is not empty" run "${SCENARIO}" --set solver.end_time=0.001 --out "${WORK}/old")
  file(READ "${WORK}/old/summary.json" old)
  if(NOT old STREQUAL "old")
    message(FATAL_ERROR "the existing output folder was modified")
  endif()
  # 7. A mesh too coarse for a pulley (issue 33): one warning line per such pulley naming it, its
  # radius and the element length, and the run goes on. The accessory drive at 60 elements
  # (0.02992 m each) is too coarse for its three pulleys of 30-35 mm (more than 0.6 r), not for the
  # others; the paper's drive at 24 elements (0.0524 m on r = 0.09995 m) gets no warning. Element
  # counts every host build compiles (24, 60).
  get_filename_component(scenarios "${SCENARIO}" DIRECTORY)
  foreach(run "accessory_drive;60;3" "realtime_material_belt_drive;24;0")
    list(GET run 0 name)
    list(GET run 1 elements)
    list(GET run 2 expected)
    execute_process(COMMAND "${BELTSIM}" run "${scenarios}/${name}.toml" --set belt.elements=${elements}
                            --set solver.end_time=0.001 --quiet --out "${WORK}/coarse_${name}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 300)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${name} at ${elements} elements: the run failed (${rc}):\n${err}")
    endif()
    string(REGEX MATCHALL "warning: pulley '[^']+' \\(radius [0-9.]+ m\\) is too small for the element length" hits "${err}")
    list(LENGTH hits count)
    if(NOT count EQUAL expected)
      message(FATAL_ERROR "${name} at ${elements} elements: expected ${expected} coarse-mesh warnings, got ${count}:\n${err}")
    endif()
    if(expected GREATER 0)
      foreach(pulley "motor-generator' \\(radius 0.03 m" "idler' \\(radius 0.035 m" "tensioner' \\(radius 0.03 m")
        if(NOT "${err}" MATCHES "${name}.toml:[0-9]+: warning: pulley '${pulley}\\) is too small for the element length 0.02992 m")
          message(FATAL_ERROR "${name}: no warning line for '${pulley}' with its file line and the element length:\n${err}")
        endif()
      endforeach()
    endif()
  endforeach()
  # 8. A run that goes wrong says so (issue 35): it stops at the first implausible state with one
  # line naming the step, the time and what left its bounds, keeps the rows sampled so far, and
  # writes "faulted": true with the same reason. An open cable started at rest under 5 % pre-stretch
  # with one Newton iteration per 1 ms step (it flails and diverges), and a closed drive whose
  # motor is commanded to 20,000 rad/s (the belt is thrown off).
  file(READ "${scenarios}/realtime_material_belt_drive.toml" text)
  string(REPLACE "to = 12.0 }" "to = 2.0e4 }" fast "${text}")
  if(fast STREQUAL text)
    message(FATAL_ERROR "realtime_material_belt_drive.toml: the motor's speed profile was not found")
  endif()
  file(WRITE "${WORK}/thrown_off.toml" "${fast}")
  foreach(run "diverging_cable;${scenarios}/open_cantilever.toml;--set;belt.reference_strain=-0.05;--set;static.start=rest;--set;solver.max_newton=1;--set;solver.step_size=1e-3;--set;solver.end_time=0.3"
              "thrown_off;${WORK}/thrown_off.toml")
    list(POP_FRONT run name file)
    execute_process(COMMAND "${BELTSIM}" run "${file}" ${run} --quiet --out "${WORK}/${name}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 300)
    if(NOT rc EQUAL 3)
      message(FATAL_ERROR "${name}: expected exit status 3 (run stopped), got ${rc}:\n${err}")
    endif()
    set(line "run stopped at step ([0-9]+) \\(t = [0-9.]+ s\\): [^\n]+ beyond the plausible [0-9.e+]+ (m|m/s|rad/s)")
    if(NOT "${err}" MATCHES "${line}")
      message(FATAL_ERROR "${name}: no one-line reason on stderr:\n${err}")
    endif()
    file(READ "${WORK}/${name}/summary.json" summary)
    if(NOT summary MATCHES "\"faulted\": true" OR NOT summary MATCHES "\"fault_reason\": \"step [0-9]+ \\(t = ")
      message(FATAL_ERROR "${name}: summary.json does not say faulted with its reason:\n${summary}")
    endif()
    file(STRINGS "${WORK}/${name}/timeseries.csv" rows)
    list(LENGTH rows count)
    if(count LESS 3)
      message(FATAL_ERROR "${name}: the rows before the stop are missing (${count} lines)")
    endif()
    message("${name}: stopped as expected: ${err}")
  endforeach()
  # 9. An open cable is stress-free at its drawn length unless it says otherwise (issue 35): the
  # cantilever example without its `reference_strain = 0.0` line computes the same bits.
  file(READ "${scenarios}/open_cantilever.toml" text)
  string(REGEX REPLACE "\nreference_strain = 0.0\n" "\n" implicit "${text}")
  if(implicit STREQUAL text)
    message(FATAL_ERROR "open_cantilever.toml: its reference_strain line was not found")
  endif()
  file(WRITE "${WORK}/cantilever_default_strain.toml" "${implicit}")
  foreach(run "explicit;${scenarios}/open_cantilever.toml" "implicit;${WORK}/cantilever_default_strain.toml")
    list(GET run 0 name)
    list(GET run 1 file)
    execute_process(COMMAND "${BELTSIM}" run "${file}" --quiet --out "${WORK}/cantilever_${name}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 300)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "cantilever (${name} reference strain): the run failed (${rc}):\n${err}")
    endif()
  endforeach()
  file(SHA256 "${WORK}/cantilever_explicit/timeseries.csv" ha)
  file(SHA256 "${WORK}/cantilever_implicit/timeseries.csv" hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "an open cable without reference_strain does not start stress-free")
  endif()
elseif(MODE STREQUAL "determinism")
  foreach(run a b)
    execute_process(COMMAND "${BELTSIM}" run "${SCENARIO}" --set solver.end_time=0.08 --quiet --out "${WORK}/${run}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err TIMEOUT 600)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "run ${run} failed (${rc}): ${err}")
    endif()
  endforeach()
  foreach(f timeseries.csv belt_profile.csv)
    file(SHA256 "${WORK}/a/${f}" ha)
    file(SHA256 "${WORK}/b/${f}" hb)
    if(NOT ha STREQUAL hb)
      message(FATAL_ERROR "${f} differs between two runs of the same scenario")
    endif()
    message("${f}: identical (${ha})")
  endforeach()
  foreach(run a b)
    file(STRINGS "${WORK}/${run}/summary.json" lines)
    list(FILTER lines EXCLUDE REGEX "wall_time_s|step_time_us")
    set(summary_${run} "${lines}")
  endforeach()
  if(NOT summary_a STREQUAL summary_b)
    message(FATAL_ERROR "summary.json differs (wall-time fields aside)")
  endif()
  message("summary.json: identical apart from wall-time fields")
else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
