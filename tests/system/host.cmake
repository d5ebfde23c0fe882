# Belt-drive system (issue 5): GoogleTest suites of the assembled model (Linux targets).
# Included from tests/CMakeLists.txt; paths are relative to tests/.
# Physics studies of the assembled drive: the optimized native build only (beltsim_add_study,
# tests/CMakeLists.txt; docs/build_and_test.md, *Which preset runs what*).
beltsim_add_study(host_quasi_static_circle host/test_quasi_static_circle.cpp)
beltsim_add_study(host_pulley_count host/test_pulley_count.cpp)
beltsim_add_study(host_belt_topologies host/test_belt_topologies.cpp)
beltsim_add_study(host_belt_three_pulleys host/test_belt_three_pulleys.cpp)
beltsim_add_study(host_newton_matrix_update host/test_newton_matrix_update.cpp)
beltsim_add_study(host_fixed_cost_stepper host/test_fixed_cost_stepper.cpp)
beltsim_add_study(host_energy host/test_energy.cpp)
beltsim_add_study(host_tensioner_arm_drive host/test_tensioner_arm_drive.cpp)
beltsim_add_gtest(host_tensioner_arm host/test_tensioner_arm.cpp)
beltsim_add_gtest(host_bearing_drag host/test_bearing_drag.cpp)
set_tests_properties(host_bearing_drag PROPERTIES LABELS "gtest;faults")
foreach(_arm_test host_tensioner_arm host_tensioner_arm_drive host_energy)
  if(TARGET ${_arm_test})
    target_include_directories(${_arm_test} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support)  # sample_tensioner_arm.hpp
  endif()
endforeach()

# Pulley laws of beltsim runs (issue 16, "What must be shown"): the capstan law on every driven
# pulley in slip (two_drives_in_slip.toml) and the accessory drive's static hub loads against the
# span forces, and its pulleys turn without a speed ripple that the belt does not have (issue 33);
# the paper's drive reports the coarse mesh's ripple in its summary, and it shrinks from 24 to 60
# elements.
# Host preset only (optimized build; the scenarios' own meshes).
if(TARGET beltsim AND NOT CMAKE_CROSSCOMPILING AND CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  find_program(BELTSIM_PYTHON python3 REQUIRED)
  foreach(check capstan_driven_pulleys:capstan:host_sim/scenarios/two_drives_in_slip
                static_hub_loads:hub:host_sim/scenarios/accessory_drive
                accessory_speed_ripple:ripple:host_sim/scenarios/accessory_drive
                coarse_mesh_ripple:mesh_ripple:host_sim/scenarios/paper_belt_drive)
    string(REPLACE ":" ";" check "${check}")
    list(GET check 0 name)
    list(GET check 1 mode)
    list(GET check 2 scenario)
    add_test(NAME beltsim_${name}
             COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/pulley_laws.py ${mode} $<TARGET_FILE:beltsim>
                     ${CMAKE_SOURCE_DIR}/${scenario}.toml ${CMAKE_CURRENT_BINARY_DIR}/beltsim_${name})
    set_tests_properties(beltsim_${name} PROPERTIES TIMEOUT 300 LABELS cli)
  endforeach()
  # Gross slip (issue 49): a belt sliding over P1's whole wrap obeys the capstan law, in the shipped
  # real-time configurations, at 24 and 60 elements with the paper's settings, and on the mesh that
  # stands still with its fixed-cost stepping.
  add_test(NAME beltsim_gross_slip_capstan
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/gross_slip.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_gross_slip_capstan)
  set_tests_properties(beltsim_gross_slip_capstan PROPERTIES TIMEOUT 300 LABELS cli)
  # Engine start: the motor-generator cranks the crankshaft from rest through the belt;
  # the crankshaft follows the drive's inertia and drag reflected on it.
  add_test(NAME beltsim_engine_start_follows_the_reflected_inertia
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/engine_start.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_engine_start)
  set_tests_properties(beltsim_engine_start_follows_the_reflected_inertia PROPERTIES TIMEOUT 300 LABELS cli)
  # The accessory drive on the eulerian mesh, its stations following the tensioner arm
  # (docs/model_moving_stations.md), against the same drive on 120 material elements.
  add_test(NAME beltsim_accessory_drive_eulerian_follows_the_material_mesh
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/accessory_eulerian.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_accessory_eulerian)
  set_tests_properties(beltsim_accessory_drive_eulerian_follows_the_material_mesh PROPERTIES TIMEOUT 300 LABELS cli)
  # Injected faults (issue 52, docs/injected_faults.md): a friction fault on P1 of the main job's
  # scenario slides as the capstan law says and the drive recovers when it dries; a worn belt
  # creeps with its lower stiffness and slides when the pre-tension falls too far; both scenario
  # readers refuse bad [[fault]] tables alike and the generator writes good ones into the firmware's
  # plant configuration.
  add_test(NAME beltsim_injected_friction
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_friction.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_injected_friction)
  add_test(NAME beltsim_injected_belt_stiffness
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_belt_stiffness.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_injected_belt_stiffness)
  add_test(NAME scenario_injected_fault_tables
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_fault_tables.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/scenario_injected_fault_tables)
  # Sensor faults: the encoder and load-cell columns of the main job's scenario, each fault as
  # its definition says, the truth columns the same text.
  add_test(NAME beltsim_injected_sensors
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_sensors.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_injected_sensors)
  # Plant faults on the accessory drive: a tired tensioner spring against the string on its path,
  # a dragging idler bearing against the crankshaft's torque and the capstan law.
  add_test(NAME beltsim_injected_plant_faults
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_plant_faults.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_injected_plant_faults)
  # Riding through: the firmware's two configurations with each plant kind that has a target there.
  add_test(NAME beltsim_injected_riding_through
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/injected_riding_through.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/beltsim_injected_riding_through)
  set_tests_properties(beltsim_injected_friction beltsim_injected_belt_stiffness scenario_injected_fault_tables
                       beltsim_injected_sensors beltsim_injected_plant_faults beltsim_injected_riding_through
                       PROPERTIES TIMEOUT 300
                       LABELS "cli;faults")
  # The eulerian mesh (issue 51) through beltsim run: the paper's drive without the
  # element-passing ripple, its tail means, creep and material flux.
  add_test(NAME beltsim_eulerian_mesh_run
           COMMAND ${BELTSIM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/system/eulerian_mesh_run.py $<TARGET_FILE:beltsim>
                   ${CMAKE_SOURCE_DIR}/host_sim/scenarios/eulerian_belt_drive.toml
                   ${CMAKE_CURRENT_BINARY_DIR}/beltsim_eulerian_mesh_run)
  set_tests_properties(beltsim_eulerian_mesh_run PROPERTIES TIMEOUT 300 LABELS cli)
endif()
