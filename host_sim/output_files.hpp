// Output files of a host run: summary.json, timeseries.csv, belt_profile.csv and PNG plots
// (gnuplot). Numbers are printed with %.10g so that two runs of the same scenario give
// byte-identical files (wall-time fields aside).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "beltsim/stepping/reference_stepper.hpp"
#include "scenario.hpp"

namespace beltsim::host {

// What a run of steps accepted (every output row carries it for the steps since the
// previous row, summary.json for the whole run): the iteration maxima, the largest last Newton
// residual and post-Newton error, and how many of the steps were flagged (not converged).
struct IntervalHealth {
  int newtonIterations = 0;
  int pnsIterations = 0;
  double residualNorm = 0.0;  // N
  double pnsError = 0.0;      // N
  long long flaggedSteps = 0;
  void add(const StepStatistics& st) {
    if (st.newtonIterations > newtonIterations) newtonIterations = st.newtonIterations;
    if (st.pnsIterations > pnsIterations) pnsIterations = st.pnsIterations;
    if (st.residualNorm > residualNorm) residualNorm = st.residualNorm;
    if (st.pnsError > pnsError) pnsError = st.pnsError;
    if (!st.converged()) ++flaggedSteps;
  }
};
// The CSV columns of IntervalHealth and a row's values in the same order (numbers as %.10g, like
// the other columns).
constexpr const char* kIntervalHealthColumns =
    ",newton_iterations,pns_iterations,max_residual_norm,max_pns_error,flagged_steps";
inline std::string intervalHealthCsv(const IntervalHealth& h) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, ",%d,%d,%.10g,%.10g,%lld", h.newtonIterations, h.pnsIterations, h.residualNorm,
                h.pnsError, h.flaggedSteps);
  return buffer;
}

// One sampled instant; pulley p in travel order (P1 = index 0). Torques are physical, positive
// counter-clockwise.
struct TimeRow {
  double time = 0.0;
  double angle[kMaxPulleys] = {};      // rad
  double omega[kMaxPulleys] = {};      // rad/s
  double torque[kMaxPulleys] = {};     // N m: a speed drive's reaction (the drive torque), the
                                       // applied torque of a torque drive, load or idler, the
                                       // axle's torque on a fixed pulley
  double beltTorque[kMaxPulleys] = {}; // N m, torque of the belt on the pulley
  double hubForce[kMaxPulleys][2] = {};  // N, force of the belt on the pulley (its axle load)
  double centre[kMaxPulleys][2] = {};  // m, the pulley's centre (moves for floating and tensioner)
  double armAngle[kMaxPulleys] = {};   // rad, tensioner: direction of pivot -> centre (atan2)
  double armTorque[kMaxPulleys] = {};  // N m, tensioner: spring, damper and friction on the arm
  double spanForce[kMaxPulleys] = {};  // N, span k from pulley k to pulley k+1
  double spanSpeed[kMaxPulleys] = {};  // m/s
  double materialTravelled = 0.0;      // m of belt past node 0 since the start (eulerian mesh only)
  double frictionCoefficient[kMaxPulleys] = {};  // mu of the pulley's contact now (injected faults)
  double axialStiffness = 0.0;         // N, the belt's EA now (injected faults)
  double springRate[kMaxPulleys] = {};   // N m/rad, a tensioner's spring rate now (injected faults)
  double bearingDrag[kMaxPulleys] = {};  // N m, the Coulomb torque of a pulley's bearing drag now
  unsigned injectedFaults = 0;         // bit k: [[fault]] k acts (its level is above 0)
  std::int32_t encoderCount[kMaxPulleys] = {};  // the emulated encoder's reading, counts ([sensors])
  double loadCell[kMaxPulleys] = {};   // N, the emulated load cell of span k's reading ([sensors])
  IntervalHealth health;               // of the steps since the previous row
};

struct ProfileRow {
  double s, axialForce, axialVelocity, normalStress, tangentialStress;
  int stickSlip;
  int pulley;   // in contact with (-1: none)
  double x, y;  // centreline position of the sample at the end, m
  double segmentLength;  // m, the mesh length of the sample's contact segment
};

struct RunTotals {
  IntervalHealth all;  // of every step of the run (its flaggedSteps: the non-converged steps)
  long long newtonNotConverged = 0;
  long long pnsNotConverged = 0;
  bool faulted = false;
  std::string faultReason;  // what stopped the run (one line; empty unless faulted)
  void add(const StepStatistics& st) {
    all.add(st);
    if (st.flags & kStepNewtonNotConverged) ++newtonNotConverged;
    if (st.flags & kStepPnsNotConverged) ++pnsNotConverged;
  }
};

// The axial force on each pulley averaged over the tail window (the last 0.15 s, as the tail
// means), in bins of the wrap angle phi (from where the belt arrives on the pulley, in s, in the
// sense of its sweep; about the pulley's current centre). A bin keeps, over the samples of every
// row in the window in contact with that pulley, the mean of F exp(-mu phi) and F exp(+mu phi):
// the capstan law F = F_start exp(+-mu phi) makes one of them F_start all over the slip arc, so the
// bin's width does not enter. And the fraction of its samples that slipped. Samples move with the
// belt, so each bin sees every place within the elements passing it, which a single profile at the
// end, with the element's pointwise force, does not.
struct WrapBins {
  static constexpr double kWidth = 0.02;  // rad
  static constexpr int kCount = 320;      // phi in [-0.1, 6.3) rad
  static constexpr double kLowest = -0.1;
  struct Bin {
    long count = 0, slipping = 0;
    double decaying = 0.0, growing = 0.0;  // sums of F exp(-mu phi) and F exp(+mu phi), N
  };
  std::vector<Bin> bins[kMaxPulleys];
  void add(int p, double phi, double force, bool slipping, double mu) {
    const int k = static_cast<int>(std::floor((phi - kLowest) / kWidth));
    if (p < 0 || p >= kMaxPulleys || k < 0 || k >= kCount) return;
    if (bins[p].empty()) bins[p].resize(kCount);
    Bin& b = bins[p][k];
    ++b.count;
    b.slipping += slipping ? 1 : 0;
    b.decaying += force * std::exp(-mu * phi);
    b.growing += force * std::exp(mu * phi);
  }
  static double centre(int k) { return kLowest + (k + 0.5) * kWidth; }
};

struct RunInfo {
  const Scenario* scenario = nullptr;
  int elements = 0;
  int pulleys = 2;
  double centrelineRadius[kMaxPulleys] = {};     // r + h/2 on each pulley, m
  double beltLength = 0.0;
  double driverArcStart = 0.0;  // s_l where the belt arrives on P1 (start of P1's contact arc)
  double driverRadius = 0.0;    // centreline radius on P1
  double arcStart[kMaxPulleys] = {};  // s_l where the belt arrives on pulley p (drawn path; p = 0: driverArcStart)
  bool staticConverged = false;
  double staticResidual = 0.0;
  double staticLockForce = 0.0;  // N along x: what the static solve's lock of node 0 applies to the belt
  double wallTime = 0.0;
  long long steps = 0;
  RunTotals totals;
  WrapBins tailBins;  // filled over the tail window by the run
};

class OutputFiles {
 public:
  // Creates the folder; fails if it exists and is not empty.
  bool open(const std::string& directory, std::string& error);
  const std::string& directory() const { return directory_; }
  bool writeAll(const RunInfo& info, const std::vector<TimeRow>& rows, const std::vector<ProfileRow>& profile,
                std::vector<float> stepMicros, bool plots, std::string& error);

 private:
  std::string directory_;
};

}  // namespace beltsim::host
