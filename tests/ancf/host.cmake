# ANCF cable element (issue 3): GoogleTest suites (Linux targets) and the benchmark (host).
# Included from tests/CMakeLists.txt; paths are relative to tests/.
beltsim_add_gtest(host_ancf_statics host/test_ancf_statics.cpp)
beltsim_add_gtest(host_ancf_modal host/test_ancf_modal.cpp)
beltsim_add_benchmark(bench_ancf bench/bench_ancf.cpp)
