// Output files of an open-belt run (belt.closed = false): an open cable has ends instead of
// spans, so its files differ from a closed drive's (output_files.hpp):
//   timeseries.csv  time; per pulley angle, omega, torque, hub force; the axial force next to
//                   each end; x, y of every node in output.nodes; Newton / PNS maxima,
//                   the largest residual and post-Newton error, flagged steps
//   belt_profile.csv  one row per contact segment at end time: s (reference arc length from the
//                   start node), x, y, axial force and velocity, contact stresses, stick/slip,
//                   pulley in contact
//   summary.json    the run, the pulleys and the output nodes at end time, step statistics
//   cable_shape.png, node_positions.png (and pulley_speeds.png with pulleys)
#pragma once
#include <string>
#include <vector>

#include "output_files.hpp"

namespace beltsim::host {

struct CableRow {
  double time = 0.0;
  double angle[kMaxPulleys] = {}, omega[kMaxPulleys] = {}, torque[kMaxPulleys] = {};
  double hubForce[kMaxPulleys][2] = {};
  double centre[kMaxPulleys][2] = {};  // m (a floating pulley moves)
  double startForce = 0.0, finishForce = 0.0;  // N, axial force at the first / last segment
  std::vector<double> nodes;                   // x, y of each output node
  IntervalHealth health;  // of the steps since the previous row
};

struct CableProfileRow {
  double s, x, y, axialForce, axialVelocity, normalStress, tangentialStress;
  int stickSlip, pulley;
};

struct CableRunInfo {
  const Scenario* scenario = nullptr;
  double length = 0.0;  // reference length of the cable, m
  bool startAtRest = false;
  bool staticConverged = false;
  double staticResidual = 0.0;
  int staticIterations = 0;
  double wallTime = 0.0;
  RunTotals totals;
};

bool writeOpenCableFiles(const std::string& directory, const CableRunInfo& info, const std::vector<CableRow>& rows,
                         const std::vector<CableProfileRow>& profile, std::vector<float> stepMicros,
                         std::string& error);

}  // namespace beltsim::host
