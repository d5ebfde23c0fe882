// The analysis of a closed-belt run: what summary.json and the plots report (tail means and
// ripple, contact and slip arcs, the capstan checks, the end-time path), computed in one place
// from the run's rows and profile; output_files.cpp only writes it.
#pragma once
#include <cmath>
#include <vector>

#include "beltsim/system/belt_geometry.hpp"
#include "output_files.hpp"

namespace beltsim::host {

// Means over the last 0.15 s (the paper's Table 4 averages over about that window), or over
// the last 10 % of a shorter run, and the population standard deviations about them over the same
// rows: the ripple a coarse mesh puts on the steady state (elements passing the pulleys;
// docs/validation_and_convergence.md, "Ripple of coarse meshes"), which the means average out.
struct TailMeans {
  double omega[kMaxPulleys] = {}, torque[kMaxPulleys] = {}, beltTorque[kMaxPulleys] = {};
  double spanForce[kMaxPulleys] = {}, spanSpeed[kMaxPulleys] = {};
  double omegaStd[kMaxPulleys] = {}, torqueStd[kMaxPulleys] = {};
  double spanForceStd[kMaxPulleys] = {}, spanSpeedStd[kMaxPulleys] = {};
  double window = 0.0;
};

// Largest relative deviation of the axial force over a pulley's slip arc from the capstan law
// F(phi) = F_start exp(+-mu phi) (docs/model_start_and_benchmark.md §9.6 check 4; Euler-Eytelwein), phi the wrap angle from the
// start s0 of the pulley's contact arc (ArcAngle), F_start the force of the span arriving there and
// F_end that of the span leaving the arc's other end; the sign makes F run from F_start towards
// F_end, and the arc over which the law reaches F_end is ln(F_tight / F_slack) / mu. The belt runs
// towards decreasing s (pulleys turning counter-clockwise), so s0 is where it leaves the pulley, the
// end at which creep theory puts the slip arc (the stick arc follows, next to the entry). Two
// ranges: the measured slip arc (segments in a slip state: where the law applies) and the
// theoretical arc phi in [0, ln(F_tight/F_slack)/mu], whose last few per cent lie in the transition
// to the stick zone (on P1 of the paper's drive about 645 N against 665 N at its end). `pulley` >= 0
// counts only the segments in contact with that pulley; P1's top-level check counts every segment
// (a sample of a span has phi < 0 before the arc and phi > the wrap angle after it).
struct CapstanCheck {
  double wrapAngle = 0.0;          // ln(F_tight / F_slack) / mu, rad
  double slipArcAngle = 0.0;       // measured slip arc, rad
  double errorSlipArc = -1.0;      // max relative error over the measured slip arc
  double errorTheoretical = -1.0;  // max relative error over [0, wrapAngle]
};

// Unit direction of each span at the end: the common tangent of its two pulleys at their
// end-time centres (floating pulleys and tensioners move away from the drawn path).
struct SpanDirections {
  bool ok = false;
  Vector2 direction[kMaxPulleys];
};

// Contact and slip arcs of each pulley in the end-of-run profile: segments in contact with it,
// and those of them in a slip state, times the segment length.
struct PulleyArcs {
  double contact[kMaxPulleys] = {};
  double slip[kMaxPulleys] = {};
};

struct RunAnalysis {
  TimeRow last;                     // the last row (all zero without rows)
  int tight = 0, slack = 0;         // the spans of the largest and smallest force at the end
  PulleyArcs arcs;
  TailMeans tail;
  bool endPathOk = false;           // the belt path at the end-time centres exists
  BeltPath<kMaxPulleys> endPath;
  CapstanCheck capstan;             // P1 over the end profile, between the slack and tight spans
  CapstanCheck capstanTail;         // P1 over the tail window
  bool hasCapstan[kMaxPulleys] = {};  // turns with the belt: the per-pulley checks below are reported
  CapstanCheck pulleyCapstan[kMaxPulleys];
  CapstanCheck pulleyCapstanTail[kMaxPulleys];
  SpanDirections directions;
  double stepMicrosMedian = 0.0, stepMicrosMax = 0.0;  // wall time of a step
};

RunAnalysis analyseRun(const RunInfo& info, const std::vector<TimeRow>& rows, const std::vector<ProfileRow>& profile,
                       std::vector<float> stepMicros);

// Standard deviation over the magnitude of the mean (0 where the mean is 0).
inline double relativeRipple(double deviation, double mean) { return mean != 0.0 ? deviation / std::fabs(mean) : 0.0; }


}  // namespace beltsim::host
