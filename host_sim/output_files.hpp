// Output files of a host run: summary.json, timeseries.csv, belt_profile.csv and PNG plots
// (gnuplot). Numbers are printed with %.10g so that two runs of the same scenario give
// byte-identical files (wall-time fields aside).
#pragma once
#include <string>
#include <vector>

#include "beltsim/generalized_alpha.hpp"
#include "scenario.hpp"

namespace beltsim::host {

struct TimeRow {
  double time = 0.0;
  double angle[2] = {0.0, 0.0};   // rad
  double omega[2] = {0.0, 0.0};   // rad/s
  double driveTorque = 0.0;       // N m, torque the drive applies to P1
  double appliedLoadTorque = 0.0; // N m, applied torque on P2 (negative: a load)
  double beltTorqueLoad = 0.0;    // N m, torque of the belt on P2
  double spanForce[2] = {0.0, 0.0};  // N, span k from pulley k to pulley k+1
  double spanSpeed[2] = {0.0, 0.0};  // m/s
  int newtonIterations = 0;       // max over the steps since the previous row
  int pnsIterations = 0;
};

struct ProfileRow {
  double s, axialForce, axialVelocity, normalStress, tangentialStress;
  int stickSlip;
};

struct RunTotals {
  long long nonConverged = 0;
  long long newtonNotConverged = 0;
  long long pnsNotConverged = 0;
  int newtonMax = 0;
  int pnsMax = 0;
  bool faulted = false;
  void add(const StepStatistics& st) {
    if (!st.converged()) ++nonConverged;
    if (st.flags & kStepNewtonNotConverged) ++newtonNotConverged;
    if (st.flags & kStepPnsNotConverged) ++pnsNotConverged;
    if (st.newtonIterations > newtonMax) newtonMax = st.newtonIterations;
    if (st.pnsIterations > pnsMax) pnsMax = st.pnsIterations;
  }
};

struct RunInfo {
  const Scenario* scenario = nullptr;
  int elements = 0;
  double beltLength = 0.0;
  double driverArcStart = 0.0;  // s_l where the belt arrives on P1 (start of P1's contact arc)
  double driverRadius = 0.0;    // centreline radius on P1
  bool staticConverged = false;
  double staticResidual = 0.0;
  double wallTime = 0.0;
  long long steps = 0;
  RunTotals totals;
};

class OutputFiles {
 public:
  // Creates the folder; fails if it exists and is not empty.
  bool open(const std::string& directory, std::string& error);
  bool writeAll(const RunInfo& info, const std::vector<TimeRow>& rows, const std::vector<ProfileRow>& profile,
                std::vector<float> stepMicros, bool plots, std::string& error);

 private:
  std::string directory_;
};

}  // namespace beltsim::host
