# Circle-to-cable contact (issue 4): GoogleTest suites (Linux targets) and the benchmark (host).
# Included from tests/CMakeLists.txt; paths are relative to tests/.
beltsim_add_gtest(host_contact_detmath host/test_contact_detmath.cpp)
beltsim_add_gtest(host_contact_1d_friction host/test_contact_1d_friction.cpp)
# The 1D experiment writes its curves (CSV) and plot (PNG) here.
set_tests_properties(host_contact_1d_friction PROPERTIES
                     ENVIRONMENT "BELTSIM_CONTACT_1D_DIR=${CMAKE_BINARY_DIR}/contact_1d")
beltsim_add_benchmark(bench_contact bench/bench_contact.cpp)
# The segments' geometric bias (issue 33): a belt at rest carries its pitch-line path's tension.
beltsim_add_study(host_segment_arc_gap host/test_segment_arc_gap.cpp)
