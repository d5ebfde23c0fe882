# Belt-drive system (issue 5): GoogleTest suites of the assembled model (Linux targets).
# Included from tests/CMakeLists.txt; paths are relative to tests/.
beltsim_add_gtest(host_quasi_static_circle host/test_quasi_static_circle.cpp)
beltsim_add_gtest(host_belt_topologies host/test_belt_topologies.cpp)
beltsim_add_gtest(host_belt_three_pulleys host/test_belt_three_pulleys.cpp)
beltsim_add_gtest(host_newton_matrix_update host/test_newton_matrix_update.cpp)
beltsim_add_gtest(host_fixed_cost_stepper host/test_fixed_cost_stepper.cpp)
beltsim_add_gtest(host_pulley_count host/test_pulley_count.cpp)
beltsim_add_gtest(host_tensioner_arm host/test_tensioner_arm.cpp)
beltsim_add_gtest(host_energy host/test_energy.cpp)
