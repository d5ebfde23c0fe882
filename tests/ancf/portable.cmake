# ANCF cable element (issue 3): portable minitest suite, runs on host, Cortex-M7 and aarch64.
# Included from tests/CMakeLists.txt; paths are relative to tests/.
beltsim_add_portable_test(portable_ancf_element portable/test_ancf_element.cpp)
