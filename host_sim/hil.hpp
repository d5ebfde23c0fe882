// `beltsim hil` and `beltsim replay`: the plant loop of the firmware (firmware/plant_loop.hpp)
// on the host, driven by a controller over UDP (real time or lockstep), recorded, and replayed.
#pragma once
#include <string>
#include <vector>

#include "beltsim/system/plant.hpp"
#include "scenario.hpp"

namespace beltsim::host {

// The plant configuration a two-pulley scenario describes (false + error if it does not fit).
bool plantConfigFromScenario(const Scenario& s, PlantConfig& c, std::string& error);

struct HilOptions {
  std::string scenarioPath;
  std::vector<std::string> overrides;
  std::string address = "127.0.0.1:47800";  // where the plant listens
  // The controller's address (HOST:PORT): the only peer obeyed and answered; empty: the first
  // sender of a command frame. Datagrams from other addresses are counted as foreign.
  std::string controllerAddress;
  // The test bench's address (HOST:PORT): the only peer whose fault commands (live injected
  // faults, docs/injected_faults.md) the plant takes; empty: none. Answered with acknowledgements.
  std::string benchAddress;
  bool lockstep = false;       // one step per received frame (virtual time) instead of the clock
  double duration = 10.0;      // s of simulated time; the run ends there (real time: also wall time)
  unsigned hold = 50;          // real time: ticks a command is held without a valid frame, then safe state
  // The emulated sensors' resolution; 0: the scenario's [sensors] (host_sim/scenario_keys.toml).
  double encoderCountsPerRevolution = 0.0;
  double loadCellResolution = 0.0;  // N
  int idleTimeoutMs = 10000;   // lockstep: a controller silent this long ends the run
  int realtimePriority = 0;    // real time: SCHED_FIFO priority and locked memory (needs root); 0 = off
  std::string outputDirectory;
  bool quiet = false;
};

int runHil(const HilOptions& options);
int runReplay(const std::string& recordingPath, const std::string& outputDirectory);

}  // namespace beltsim::host
