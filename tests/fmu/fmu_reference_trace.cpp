// The firmware plant's trace for the FMU comparison (tests/fmu/test_fmu.py): BeltDrivePlant with a
// firmware configuration (firmware/plant_config.hpp), stepped directly, no FMU code involved.
// Inputs follow the paper's scenario (tests/support/paper_scenario.hpp), held over each
// communication interval of `n` model steps at their value at the interval's end, as an importer
// that sets the inputs for [t_j, t_j+1] at t_j does.
// Usage: fmu_reference_trace mcu|pc END_TIME N OUTPUT_FILE
// Output: one line per communication point, the inputs used and the FMU's outputs in value-reference order as hex
// floats (%a), so the comparison is bit for bit.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "paper_scenario.hpp"
#include "plant_config.hpp"

namespace {

template <int NE, beltsim::PlantMesh Mesh>
int run(beltsim::PlantConfig config, double endTime, int n, std::FILE* out) {
  static beltsim::BeltDrivePlant<NE, 2, Mesh> plant;  // static storage: hundreds of kilobytes
  if (!plant.setUp(config).ok()) return 3;
  plant.start();
  if (!plant.started()) return 3;
  const double h = config.stepSize;
  const long points = static_cast<long>(endTime / (n * h) + 0.5);
  for (long j = 1; j <= points; ++j) {
    const beltsim::PlantCommand command = beltsim::test::paperCommand(static_cast<double>(j * n) * h);
    beltsim::PlantOutput o;
    bool converged = true;
    for (int k = 0; k < n; ++k) {
      o = plant.step(command);
      converged = converged && o.converged;
      if (o.fault != beltsim::PlantFault::kNone) return 4;
    }
    // The inputs (value references 1 and 3), then the outputs 30..37 and 40..45 (fmu_variables.hpp).
    std::fprintf(out, "%a %a %a %a %a %a %a %a %a %a %d %d %d %a %a\n", command.input[0], command.input[1], o.angle[0], o.angle[1], o.speed[0], o.speed[1],
                 o.torque[0], plant.drive().beltTorque(1), o.spanForce[0], o.spanForce[1], converged ? 1 : 0,
                 o.newtonIterations, o.pnsIterations, o.residualNorm, o.pnsError);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 || (std::strcmp(argv[1], "mcu") != 0 && std::strcmp(argv[1], "pc") != 0)) {
    std::fprintf(stderr, "usage: fmu_reference_trace mcu|pc END_TIME N OUTPUT_FILE\n");
    return 2;
  }
  const double endTime = std::atof(argv[2]);
  const int n = std::atoi(argv[3]);
  std::FILE* out = std::fopen(argv[4], "w");
  if (out == nullptr || n < 1 || !(endTime > 0.0)) return 2;
  using beltsim::MotorMode;
  const int status = std::strcmp(argv[1], "pc") == 0
                         ? run<beltsim::fw::kPcElements, beltsim::fw::kPcMesh>(beltsim::fw::pcPlantConfig(MotorMode::kSpeed), endTime, n, out)
                         : run<beltsim::fw::kMicrocontrollerElements, beltsim::fw::kMicrocontrollerMesh>(
                               beltsim::fw::microcontrollerPlantConfig(MotorMode::kSpeed), endTime, n, out);
  return std::fclose(out) == 0 ? status : 1;
}
