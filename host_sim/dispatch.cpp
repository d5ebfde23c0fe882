// Chooses the compiled element count and circle build of a scenario: two-pulley drives run on
// the 2-circle build (the paper's bits), every other drive and every open belt on the 8-circle
// build.
#include <cstdio>

#include "simulation.hpp"

namespace beltsim::host {

// Two-pulley drives with fewer elements run on the 8-circle build (host_sim/CMakeLists.txt).
constexpr int kSmallestTwoCircleBuild = 24;

#define BELTSIM_ELEMENTS(NE)                                                                \
  extern template int runScenarioWith<NE, 2>(const Scenario&, const RunOptions&);           \
  extern template int runScenarioWith<NE, kMaxPulleys>(const Scenario&, const RunOptions&); \
  extern template int runOpenCableWith<NE>(const Scenario&, const RunOptions&);
#include "element_counts.inc"
#undef BELTSIM_ELEMENTS

namespace {
template <int NE>
int runWith(const Scenario& scenario, const RunOptions& options) {
  if (!scenario.belt.closed) return runOpenCableWith<NE>(scenario, options);
  if constexpr (NE >= kSmallestTwoCircleBuild) {
    if (scenario.pulleys.size() == 2) return runScenarioWith<NE, 2>(scenario, options);
  }
  return runScenarioWith<NE, kMaxPulleys>(scenario, options);
}
}  // namespace

#define BELTSIM_EULERIAN_ELEMENTS(NE)                                                                   \
  extern template int runEulerianScenarioWith<NE, 2>(const Scenario&, const RunOptions&); \
  extern template int runEulerianScenarioWith<NE, kMaxPulleys>(const Scenario&, const RunOptions&);
#include "eulerian_element_counts.inc"
#undef BELTSIM_EULERIAN_ELEMENTS

int runScenario(const Scenario& scenario, const RunOptions& options) {
  if (scenario.eulerianMesh) {
    // The scenario reader lets an eulerian mesh through for closed belts only.
#define BELTSIM_EULERIAN_ELEMENTS(NE)                                                          \
  if (scenario.elements == NE) {                                                               \
    return scenario.pulleys.size() == 2 ? runEulerianScenarioWith<NE, 2>(scenario, options)    \
                                        : runEulerianScenarioWith<NE, kMaxPulleys>(scenario, options); \
  }
#include "eulerian_element_counts.inc"
#undef BELTSIM_EULERIAN_ELEMENTS
    std::fprintf(stderr, "%s: key 'belt.elements': %d is not compiled in for the eulerian mesh\n", scenario.file.c_str(),
                 scenario.elements);
    return 2;
  }
#define BELTSIM_ELEMENTS(NE) \
  if (scenario.elements == NE) return runWith<NE>(scenario, options);
#include "element_counts.inc"
#undef BELTSIM_ELEMENTS
  std::fprintf(stderr, "%s: key 'belt.elements': %d is not compiled in\n", scenario.file.c_str(), scenario.elements);
  return 2;
}

}  // namespace beltsim::host
