// Definition of runScenarioWith<NE>; included only by the generated run_ne<N>.cpp files.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "beltsim/belt_drive.hpp"
#include "beltsim/belt_geometry.hpp"
#include "beltsim/belt_outputs.hpp"
#include "beltsim/paper_parameters.hpp"
#include "beltsim/static_equilibrium.hpp"
#include "beltsim/time_stepper.hpp"
#include "output_files.hpp"
#include "simulation.hpp"

namespace beltsim::host {

constexpr int kMaxSegments = 8;  // contact.segments_per_element may be 1..8 at run time

template <int NE, int NP>
int runScenarioWith(const Scenario& sc, const RunOptions& options) {
  static_assert(NP <= kMaxPulleys, "a build of more circles than a scenario may have");
  using Drive = BeltDrive<NE, NP, kMaxSegments>;
  const int pulleys = static_cast<int>(sc.pulleys.size());
  if (pulleys < 2 || pulleys > NP) {
    std::fprintf(stderr, "%s: key 'pulley': %d pulleys, this build takes 2 to %d\n", sc.file.c_str(), pulleys, NP);
    return 2;
  }
  using Vector = typename Drive::Vector;
  // Large fixed-size objects live on the heap of the host program (the model itself never
  // allocates; on the target they are static).
  auto drive = std::make_unique<Drive>();
  auto integrator = std::make_unique<TimeStepper<Drive>>();

  // ---- geometry (spec §8.1): belt centreline at r + h/2 on every pulley ----------------------
  PathCircle circles[NP];
  CircleParameters circleParameters[NP];
  for (int p = 0; p < pulleys; ++p) {
    circleParameters[p] = sc.pulleys[p].circle;
    circles[p] = pathCircleOf(sc, p);
  }
  BeltPath<NP> path;
  ParameterError e = buildBeltPath(circles, pulleys, path);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: key 'pulley': belt path impossible (%s)\n", sc.file.c_str(), e.parameter);
    return 2;
  }
  const double length = path.totalLength / NE;
  const int segments = sc.segmentsPerElement;
  // Per-segment contact values from per-area values (spec §9.1): c_F = b L / n_cs.
  ContactParameters contact = contactFromPerArea(sc.contactPerArea, sc.belt, length, segments);
  contact.normalExponent = sc.normalExponent;
  contact.useSegmentNormals = sc.useSegmentNormals;
  contact.useBoundingBox = sc.useBoundingBox;
  contact.friction.law = sc.law;
  contact.friction.characteristicVelocity = sc.characteristicVelocity;
  e = drive->setUp(sc.belt, length, circleParameters, pulleys, contact);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: invalid model parameter '%s'\n", sc.file.c_str(), e.parameter);
    return 2;
  }
  e = integrator->setUp(sc.integrator, sc.stepSize);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: key 'solver': invalid setting '%s'\n", sc.file.c_str(), e.parameter);
    return 2;
  }

  // ---- output folder: created only now, never mixed with old files ------------------------------
  OutputFiles out;
  std::string error;
  if (!out.open(options.outputDirectory, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }

  // ---- static equilibrium (spec §8.3-8.4) ------------------------------------------------------
  Vector q;
  placeOnPath(*drive, path, q);
  const auto wallStart = std::chrono::steady_clock::now();
  const StaticResult statics = solveStaticEquilibrium(*drive, q, sc.staticSettings, contact.friction);
  if (statics.status != Status::kOk) {
    std::fprintf(stderr, "static equilibrium failed: status %d\n", static_cast<int>(statics.status));
    return 3;
  }
  if (options.progress) {
    std::fprintf(stderr, "static equilibrium: %s, %d Newton iterations, residual %.3e N\n",
                 statics.converged ? "converged" : "NOT converged", statics.newtonIterations, statics.residualNorm);
  }

  // ---- dynamic run ---------------------------------------------------------------------------------
  integrator->initialize(q, Vector::Zero(), Vector::Zero(), 0.0);
  const Status prepared = integrator->prepare(*drive);
  if (prepared != Status::kOk) {
    std::fprintf(stderr, "Newton matrix at the initial state failed: status %d\n", static_cast<int>(prepared));
    return 3;
  }
  const long long steps = static_cast<long long>(std::llround(sc.endTime / sc.stepSize));
  const long long sampleEvery = std::max<long long>(1, std::llround(sc.sampleInterval / sc.stepSize));
  std::vector<float> stepMicros;
  stepMicros.reserve(static_cast<size_t>(steps));
  RunTotals totals;
  int intervalNewton = 0, intervalPns = 0;
  std::vector<TimeRow> rows;
  rows.reserve(static_cast<size_t>(steps / sampleEvery + 2));
  auto sample = [&](double t) {
    const Vector& qq = integrator->positions();
    const Vector& vv = integrator->velocities();
    TimeRow row;
    row.time = t;
    for (int p = 0; p < pulleys; ++p) {
      row.angle[p] = qq(Drive::circleDof(p, 2));
      row.omega[p] = vv(Drive::circleDof(p, 2));
      // The torque of what drives or loads the pulley: a speed drive's reaction, else the
      // applied torque (profile and command); a fixed pulley's axle holds the belt's torque.
      const CircleKind kind = circleParameters[p].kind;
      row.torque[p] = kind == CircleKind::kSpeedDriven ? drive->driveTorque(p)
                      : kind == CircleKind::kFixed     ? -drive->beltTorque(p)
                                                       : drive->appliedTorque(p, t);
      row.beltTorque[p] = drive->beltTorque(p);
      row.hubForce[p][0] = drive->hubForce(p)(0);
      row.hubForce[p][1] = drive->hubForce(p)(1);
      row.centre[p][0] = qq(Drive::circleDof(p, 0));
      row.centre[p][1] = qq(Drive::circleDof(p, 1));
      if (kind == CircleKind::kTensionerArm) {
        const ArmForce arm = drive->armState(p, qq, vv);
        row.armAngle[p] = drive->armGeometryOf(p).drawnAngle + arm.angle;
        row.armTorque[p] = arm.torque;
      }
    }
    for (int k = 0; k < pulleys; ++k) {
      const SpanMeasure m = measureSpan(*drive, qq, vv, path, k);
      row.spanForce[k] = m.force;
      row.spanSpeed[k] = m.speed;
    }
    row.newtonIterations = intervalNewton;
    row.pnsIterations = intervalPns;
    intervalNewton = intervalPns = 0;
    rows.push_back(row);
  };
  sample(0.0);
  int lastPercent = -1;
  for (long long i = 0; i < steps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const StepStatistics st = integrator->step(*drive);
    const auto t1 = std::chrono::steady_clock::now();
    stepMicros.push_back(static_cast<float>(std::chrono::duration<double, std::micro>(t1 - t0).count()));
    totals.add(st);
    intervalNewton = std::max(intervalNewton, st.newtonIterations);
    intervalPns = std::max(intervalPns, st.pnsIterations);
    if (st.flags & kStepFault) {
      std::fprintf(stderr, "model fault at step %lld (t = %.6f s): status %d; run stopped\n", i + 1,
                   integrator->time(), static_cast<int>(st.status));
      totals.faulted = true;
      break;
    }
    if ((i + 1) % sampleEvery == 0 || i + 1 == steps) sample(integrator->time());
    const int percent = static_cast<int>(100 * (i + 1) / steps);
    if (options.progress && percent != lastPercent && percent % 5 == 0) {
      const double wall = std::chrono::duration<double>(t1 - wallStart).count();
      std::fprintf(stderr, "\r  t = %.3f s (%3d %%), wall %.1f s, non-converged steps %lld   ", integrator->time(),
                   percent, wall, totals.nonConverged);
      lastPercent = percent;
    }
  }
  if (options.progress) std::fprintf(stderr, "\n");
  const double wallTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

  // ---- end-of-run profile along the belt (spatial arc coordinate s_l of spec §9.5) -----------
  const Vector& qEnd = integrator->positions();
  const Vector& vEnd = integrator->velocities();
  const double offset = spatialArcOffset(*drive, qEnd, path);
  std::vector<ProfileRow> profile;
  for (int el = 0; el < NE; ++el) {
    for (int i = 0; i < segments; ++i) {
      BeltSample bs;
      if (sampleBelt(*drive, qEnd, vEnd, el, i, bs) != Status::kOk) continue;
      double s = bs.materialArc - offset;
      s -= std::floor(s / path.totalLength) * path.totalLength;
      profile.push_back(
          ProfileRow{s, bs.axialForce, bs.axialVelocity, bs.normalStress, bs.tangentialStress, bs.stickSlip, bs.circle});
    }
  }
  std::sort(profile.begin(), profile.end(), [](const ProfileRow& a, const ProfileRow& b) { return a.s < b.s; });

  RunInfo info;
  info.scenario = &sc;
  info.elements = NE;
  info.pulleys = pulleys;
  info.segmentLength = length / segments;
  for (int p = 0; p < pulleys; ++p) info.centrelineRadius[p] = circles[p].radius;
  info.beltLength = path.totalLength;
  info.driverArcStart = path.totalLength - circles[0].radius * std::fabs(path.arcSweep[0]);
  info.driverRadius = circles[0].radius;
  info.staticConverged = statics.converged;
  info.staticResidual = statics.residualNorm;
  info.wallTime = wallTime;
  info.steps = static_cast<long long>(stepMicros.size());
  info.totals = totals;
  if (!out.writeAll(info, rows, profile, stepMicros, sc.plots, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  if (options.progress) std::fprintf(stderr, "outputs in %s\n", options.outputDirectory.c_str());
  return totals.faulted ? 3 : 0;
}

}  // namespace beltsim::host
