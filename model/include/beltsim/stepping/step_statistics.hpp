// What one step did (iterations, residual, post-Newton error) and its health flags, which travel
// with every output of the plant.
#pragma once
#include <cstdint>

#include "beltsim/core/status.hpp"

namespace beltsim {

// Per-step health, travelling with every output.
enum StepFlag : std::uint8_t {
  kStepNewtonNotConverged = 1u << 0,  // some Newton solve hit maxNewtonIterations
  kStepPnsNotConverged = 1u << 1,     // the PNS loop hit maxPnsIterations with e > tolerance
  kStepFault = 1u << 2,               // NaN/Inf or a singular matrix: state restored, model faulted
};

struct StepStatistics {
  int newtonIterations = 0;     // total over all PNS iterations
  int jacobianUpdates = 0;
  int pnsIterations = 0;
  double residualNorm = 0.0;    // unscaled |r| after the last Newton iteration, N
  double pnsError = 0.0;        // e_PNS of the last PNS, N
  std::uint8_t flags = 0;
  Status status = Status::kOk;  // why the step faulted, if it did
  bool converged() const { return flags == 0; }
};

}  // namespace beltsim
