// Definition of runOpenCableWith<NE>: one run of an open belt (belt.closed = false), included
// only by the generated run_ne<N>_np8.cpp files. The cable's initial nodes come from the scenario
// (a straight line or a polyline); the start is the static equilibrium or, with
// static.start = "rest", the drawn configuration at rest with consistent accelerations.
#pragma once
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/stepping/time_stepper.hpp"
#include "open_cable_outputs.hpp"
#include "simulation.hpp"

namespace beltsim::host {

// Nodal coordinates of the cable through the scenario's points: node k at point k, its slope the
// unit tangent (the mean direction of the two chords at an inner node). The reference length of
// an element is the polyline's length / NE, so a polyline of unequal chords starts with the
// strain chord / L - 1 in each element (the scenario's choice; a straight cable has none).
template <typename Drive>
double placeCable(const Scenario& sc, typename Drive::Vector& q) {
  constexpr int NE = Drive::kElements;
  const std::vector<Vector2>& nodes = sc.cableNodes;
  double length = 0.0;
  for (int k = 0; k < NE; ++k) length += (nodes[k + 1] - nodes[k]).norm();
  q.setZero();
  for (int k = 0; k <= NE; ++k) {
    const Vector2 before = k > 0 ? Vector2((nodes[k] - nodes[k - 1]).normalized()) : Vector2::Zero();
    const Vector2 after = k < NE ? Vector2((nodes[k + 1] - nodes[k]).normalized()) : Vector2::Zero();
    Vector2 slope = before + after;
    slope = slope.norm() > 0.0 ? Vector2(slope.normalized()) : after;  // a full reversal: the next chord
    q(Drive::nodeDof(k, 0)) = nodes[k](0);
    q(Drive::nodeDof(k, 1)) = nodes[k](1);
    q(Drive::nodeDof(k, 2)) = slope(0);
    q(Drive::nodeDof(k, 3)) = slope(1);
  }
  for (size_t p = 0; p < sc.pulleys.size(); ++p) {
    q(Drive::pulleyDof(static_cast<int>(p), 0)) = sc.pulleys[p].circle.centre(0);
    q(Drive::pulleyDof(static_cast<int>(p), 1)) = sc.pulleys[p].circle.centre(1);
  }
  return length / NE;
}

template <int NE>
int runOpenCableWith(const Scenario& sc, const RunOptions& options) {
  using Drive = BeltDrive<NE, kMaxPulleys, kMaxSegments>;
  using Vector = typename Drive::Vector;
  const int pulleys = static_cast<int>(sc.pulleys.size());
  auto drive = std::make_unique<Drive>();
  auto integrator = std::make_unique<TimeStepper<Drive>>();
  Vector q;
  const double length = placeCable<Drive>(sc, q);

  PulleyParameters circles[kMaxPulleys];
  for (int p = 0; p < pulleys; ++p) circles[p] = sc.pulleys[p].circle;
  const ContactParameters contact = contactParametersOf(sc, length);
  if (!setUpRun(sc, *drive, *integrator, length, circles, pulleys, contact)) return 2;

  // ---- the start: static equilibrium, or the drawn configuration at rest -----------------------
  CableRunInfo info;
  info.scenario = &sc;
  info.length = length * NE;
  info.startAtRest = sc.startAtRest;
  const auto wallStart = std::chrono::steady_clock::now();
  Vector a;
  if (!startState(sc, *drive, q, a, contact.friction, info.staticConverged, info.staticResidual, info.staticIterations,
                  options))
    return 3;

  // ---- dynamic run (the output folder is created only now, never mixed with old files) --------
  OutputFiles out;
  if (const int status = beginRun(options, out, *integrator, *drive, q, a)) return status;
  std::vector<CableRow> rows;
  auto sample = [&](double t, const IntervalHealth& health) {
    const Vector& qq = integrator->positions();
    const Vector& vv = integrator->velocities();
    CableRow row;
    row.time = t;
    for (int p = 0; p < pulleys; ++p) {
      row.angle[p] = qq(Drive::pulleyDof(p, 2));
      row.omega[p] = vv(Drive::pulleyDof(p, 2));
      row.torque[p] = pulleyTorque(*drive, p, t);
      row.hubForce[p][0] = drive->hubForce(p)(0);
      row.hubForce[p][1] = drive->hubForce(p)(1);
      row.centre[p][0] = qq(Drive::pulleyDof(p, 0));
      row.centre[p][1] = qq(Drive::pulleyDof(p, 1));
    }
    BeltSample first, last;
    const int segments = sc.segmentsPerElement;
    if (sampleBelt(*drive, qq, vv, 0, 0, first) == Status::kOk) row.startForce = first.axialForce;
    if (sampleBelt(*drive, qq, vv, NE - 1, segments - 1, last) == Status::kOk) row.finishForce = last.axialForce;
    for (int k : sc.outputNodes) {
      row.nodes.push_back(qq(Drive::nodeDof(k, 0)));
      row.nodes.push_back(qq(Drive::nodeDof(k, 1)));
    }
    row.health = health;
    rows.push_back(row);
  };
  std::vector<float> stepMicros;
  auto noFaults = [](double) { return ParameterError::success(); };  // the reader refuses [[fault]] on open belts
  auto noSensors = [](double) {};  // nor [sensors]
  if (!runSteps(sc, *integrator, *drive, noFaults, noSensors, sample, stepMicros, info.totals, options)) info.totals.faulted = true;
  info.wallTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

  // ---- end-of-run profile along the cable (s from the start node, reference length) -----------
  const Vector& qEnd = integrator->positions();
  const Vector& vEnd = integrator->velocities();
  std::vector<CableProfileRow> profile;
  for (int el = 0; el < NE; ++el)
    for (int i = 0; i < sc.segmentsPerElement; ++i) {
      BeltSample bs;
      if (sampleBelt(*drive, qEnd, vEnd, el, i, bs) != Status::kOk) continue;
      profile.push_back(CableProfileRow{bs.materialArc, bs.position(0), bs.position(1), bs.axialForce,
                                        bs.axialVelocity, bs.normalStress, bs.tangentialStress, bs.stickSlip,
                                        bs.circle});
    }
  std::string error;
  if (!writeOpenCableFiles(out.directory(), info, rows, profile, stepMicros, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  if (options.progress) std::fprintf(stderr, "outputs in %s\n", options.outputDirectory.c_str());
  return info.totals.faulted ? 3 : 0;
}

}  // namespace beltsim::host
