// beltsim: the host simulator.
//   beltsim run SCENARIO.toml [--set KEY=VALUE ...] --out DIR
#include <CLI/CLI.hpp>
#include <cstdio>

#include "scenario.hpp"
#include "simulation.hpp"

int main(int argc, char** argv) {
  CLI::App app{"beltsim: belt-drive plant model (ANCF belt, bristle friction) for HIL testing"};
  app.require_subcommand(1);
  CLI::App* run = app.add_subcommand("run", "simulate a scenario offline and write summary, time series, profile and plots");
  std::string scenarioPath, outputDirectory;
  std::vector<std::string> overrides;
  bool quiet = false;
  run->add_option("scenario", scenarioPath, "scenario file (TOML)")->required();
  run->add_option("--set", overrides, "override a scenario key, e.g. --set belt.elements=120");
  run->add_option("--out", outputDirectory, "output folder (must not exist or be empty)")->required();
  run->add_flag("--quiet", quiet, "no progress line");
  CLI11_PARSE(app, argc, argv);

  beltsim::host::Scenario scenario;
  const beltsim::host::ParseResult parsed = beltsim::host::loadScenario(scenarioPath, overrides, scenario);
  if (!parsed.ok) {
    std::fprintf(stderr, "error: %s\n", parsed.error.c_str());
    return 2;
  }
  beltsim::host::RunOptions options;
  options.outputDirectory = outputDirectory;
  options.progress = !quiet;
  return beltsim::host::runScenario(scenario, options);
}
