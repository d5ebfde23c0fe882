// Chooses the compiled element count of a scenario.
#include <cstdio>

#include "simulation.hpp"

namespace beltsim::host {

extern template int runScenarioWith<24>(const Scenario&, const RunOptions&);
extern template int runScenarioWith<30>(const Scenario&, const RunOptions&);
extern template int runScenarioWith<60>(const Scenario&, const RunOptions&);
extern template int runScenarioWith<120>(const Scenario&, const RunOptions&);
extern template int runScenarioWith<240>(const Scenario&, const RunOptions&);
extern template int runScenarioWith<480>(const Scenario&, const RunOptions&);

int runScenario(const Scenario& scenario, const RunOptions& options) {
  switch (scenario.elements) {
    case 24: return runScenarioWith<24>(scenario, options);
    case 30: return runScenarioWith<30>(scenario, options);
    case 60: return runScenarioWith<60>(scenario, options);
    case 120: return runScenarioWith<120>(scenario, options);
    case 240: return runScenarioWith<240>(scenario, options);
    case 480: return runScenarioWith<480>(scenario, options);
    default:
      std::fprintf(stderr, "%s: key 'belt.elements': %d is not compiled in\n", scenario.file.c_str(), scenario.elements);
      return 2;
  }
}

}  // namespace beltsim::host
