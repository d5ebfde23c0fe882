// beltsim: the host simulator.
//   beltsim run SCENARIO.toml [--set KEY=VALUE ...] --out DIR
//   beltsim hil SCENARIO.toml --udp ADDR:PORT [--lockstep] [--duration S] [--hold N] --out DIR
//   beltsim replay RECORDING --out DIR
//   beltsim check SCENARIO.toml [--set KEY=VALUE ...]   (reads and checks, runs nothing)
#include <CLI/CLI.hpp>
#include <cstdio>

#include "hil.hpp"
#include "inject.hpp"
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
  run->add_option("--set", overrides, "override a scenario key, e.g. --set belt.elements=120; [[pulley]] entries by index from 0: --set pulley[2].torque.to=3");
  run->add_option("--out", outputDirectory, "output folder (must not exist or be empty)")->required();
  run->add_flag("--quiet", quiet, "no progress line");

  beltsim::host::HilOptions hil;
  CLI::App* hilCommand = app.add_subcommand("hil", "run the plant against a controller over UDP (real time or lockstep)");
  hilCommand->add_option("scenario", hil.scenarioPath, "scenario file (TOML); pulley 1 = motor, pulley 2 = load")->required();
  hilCommand->add_option("--set", hil.overrides, "override a scenario key");
  hilCommand->add_option("--udp", hil.address, "address the plant listens on (HOST:PORT)")->capture_default_str();
  hilCommand->add_option("--controller", hil.controllerAddress,
                         "the controller's address HOST:PORT, the only peer obeyed and answered (default: the first "
                         "sender of a command frame)");
  hilCommand->add_option("--bench", hil.benchAddress,
                         "the test bench's address HOST:PORT, the only peer whose fault commands (live injected faults) "
                         "the plant takes (default: none)");
  hilCommand->add_flag("--lockstep", hil.lockstep, "one step per received frame (virtual time, reproducible)");
  hilCommand->add_option("--duration", hil.duration, "simulated seconds to run")->capture_default_str()->check(CLI::PositiveNumber);
  hilCommand->add_option("--hold", hil.hold, "real time: ticks a command is held without a valid frame before the safe state")
      ->capture_default_str();
  hilCommand->add_option("--encoder-cpr", hil.encoderCountsPerRevolution,
                         "emulated encoder counts per revolution (default: the scenario's sensors.encoder_counts_per_revolution)")
      ->check(CLI::Range(1.0, 1e9));
  hilCommand->add_option("--load-cell-resolution", hil.loadCellResolution,
                         "emulated load cell resolution, N (default: the scenario's sensors.load_cell_resolution)")
      ->check(CLI::Range(1e-12, 1e6));
  hilCommand->add_option("--idle-timeout-ms", hil.idleTimeoutMs, "lockstep: end the run after this much controller silence (exit status 4)")
      ->capture_default_str();
  hilCommand->add_option("--rt-priority", hil.realtimePriority, "real time: SCHED_FIFO priority 1..99 and mlockall (root)")
      ->check(CLI::Range(0, 99));
  hilCommand->add_option("--out", hil.outputDirectory, "output folder (must not exist or be empty)")->required();
  hilCommand->add_flag("--quiet", hil.quiet, "no progress lines");

  std::string recordingPath, replayOutput;
  CLI::App* replay = app.add_subcommand("replay", "replay a hil recording without the controller (bit-identical trace)");
  replay->add_option("recording", recordingPath, "recording.bin of a hil run")->required();
  replay->add_option("--out", replayOutput, "output folder (must not exist or be empty)")->required();
  beltsim::host::InjectOptions inject;
  bool clear = false;
  CLI::App* injectCommand =
      app.add_subcommand("inject", "the test bench: start or clear a live injected fault of a running hil plant");
  injectCommand->add_option("--plant", inject.plantAddress, "the plant's address (hil --udp)")->capture_default_str();
  injectCommand->add_option("--from", inject.benchAddress, "this bench's address HOST:PORT (the plant's --bench)")
      ->required();
  injectCommand->add_option("--table", inject.table, "the scenario's [[fault]] table, from 0")->required()
      ->check(CLI::Range(0, 7));
  injectCommand->add_option("--value", inject.value,
                            "the value a start sets, within the table's min..max (0 for stuck, reverse); a clear keeps it");
  injectCommand->add_flag("--clear", clear, "clear the table instead of starting it");
  injectCommand->add_option("--sequence", inject.sequence, "the command's sequence number (default: wall-clock ms)");
  injectCommand->add_option("--timeout-ms", inject.timeoutMs, "how long to wait for the acknowledgement")
      ->capture_default_str();
  // check reads into run's variables: the same reading, then nothing is run.
  CLI::App* check = app.add_subcommand("check", "read and check a scenario as run does, without running it");
  check->add_option("scenario", scenarioPath, "scenario file (TOML)")->required();
  check->add_option("--set", overrides, "override a scenario key (as for run)");
  CLI11_PARSE(app, argc, argv);

  if (hilCommand->parsed()) return beltsim::host::runHil(hil);
  if (replay->parsed()) return beltsim::host::runReplay(recordingPath, replayOutput);
  if (injectCommand->parsed()) {
    inject.start = !clear;
    return beltsim::host::runInject(inject);
  }

  beltsim::host::Scenario scenario;
  const beltsim::host::ParseResult parsed = beltsim::host::loadScenario(scenarioPath, overrides, scenario);
  if (!parsed.ok) {
    std::fprintf(stderr, "error: %s\n", parsed.error.c_str());
    return 2;
  }
  if (check->parsed()) return 0;
  beltsim::host::RunOptions options;
  options.outputDirectory = outputDirectory;
  options.progress = !quiet;
  return beltsim::host::runScenario(scenario, options);
}
