// Definitions of runScenarioWith<NE, NP> and runEulerianScenarioWith<NE, NP>; included only by the
// generated run_ne<N>.cpp files. One run (runClosedDrive) for both meshes of a closed belt; what
// differs between them in a scenario run (the drive's set-up from the scenario, the nodes' places,
// the start) is in MaterialMeshRun and EulerianMeshRun; what differs in the model is the drives'.
#pragma once
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/injected_faults.hpp"
#include "beltsim/system/eulerian_belt_outputs.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"
#include "beltsim/stepping/time_stepper.hpp"
#include "output_files.hpp"
#include "run_steps.hpp"
#include "simulation.hpp"

namespace beltsim::host {

// A run on the material mesh (belt.mesh = "material", BeltDrive): NE equal elements travelling with the belt, the
// stepping the scenario chooses.
template <int NE, int NP>
struct MaterialMeshRun {
  using Drive = BeltDrive<NE, NP, kMaxSegments>;
  using Stepper = TimeStepper<Drive>;
  static double elementLength(const BeltPath<NP>& path) { return path.totalLength / NE; }
  static bool setUp(const Scenario& sc, const BeltPath<NP>& path, Drive& drive, Stepper& stepper,
                    const PulleyParameters* circleParameters, int pulleys, ContactParameters& contact) {
    const double length = elementLength(path);
    // Decision: an element longer than kCoarseElementPerRadius times a pulley's radius is a mesh
    // too coarse for that pulley: the pulley's speed ripples where elements about as long as its
    // radius pass (docs/validation_and_convergence.md, *Ripple of coarse meshes*). A warning, not an
    // error: a fast coarse run is allowed.
    constexpr double kCoarseElementPerRadius = 0.6;
    for (int p = 0; p < pulleys; ++p) {
      const double radius = circleParameters[p].radius;
      if (length > kCoarseElementPerRadius * radius)
        std::fprintf(stderr,
                     "%s:%d: warning: pulley '%s' (radius %.4g m) is too small for the element length %.4g m (more "
                     "than %.1f times its radius: its speed ripples); belt.elements >= %d avoids it\n",
                     sc.file.c_str(), sc.pulleys[p].line, sc.pulleys[p].name.c_str(), radius, length,
                     kCoarseElementPerRadius,
                     static_cast<int>(std::ceil(path.totalLength / (kCoarseElementPerRadius * radius))));
    }
    contact = contactParametersOf(sc, length);
    return setUpRun(sc, drive, stepper, length, circleParameters, pulleys, contact);
  }
  static void place(const Drive& drive, const BeltPath<NP>& path, typename Drive::Vector& q) {
    placeOnPath(drive, path, q);
  }
  static double travelled(const typename Drive::Vector&, const typename Drive::Vector&) { return 0.0; }
  static double elementLength(const Drive&, int, double uniform) { return uniform; }
  static bool start(const Scenario& sc, Drive& drive, typename Drive::Vector& q, typename Drive::Vector& a,
                    const FrictionParameters& friction, RunInfo& info, int& iterations, const RunOptions& options) {
    if (!startState(sc, drive, q, a, friction, info.staticConverged, info.staticResidual, iterations, options))
      return false;
    if (!sc.startAtRest) info.staticLockForce = drive.staticLockReaction();
    return true;
  }
};

// A run on the eulerian mesh (belt.mesh = "eulerian", EulerianBeltDrive; docs/model_element.md
// §2.11): the drive with nodal material coordinates, its NE nodes where the program puts them
// from the layout (eulerian_stations.hpp), the reference or the fixed-cost stepping; the contact
// values of each element in proportion to its length from those of the mean length.
template <int NE, int NP>
struct EulerianMeshRun {
  using Drive = EulerianBeltDrive<NE, NP, kMaxSegments>;
  using Stepper = TimeStepper<Drive>;
  static double elementLength(const BeltPath<NP>& path) { return path.totalLength / NE; }
  static bool setUp(const Scenario& sc, const BeltPath<NP>& path, Drive& drive, Stepper& stepper,
                    const PulleyParameters* circleParameters, int pulleys, ContactParameters& contact) {
    double station[NE], lengths[NE];
    int elementsInPart[2 * NP];
    if (!eulerianStations(path, sc.grading, station, lengths, elementsInPart).ok()) {
      std::fprintf(stderr,
                   "%s: key 'belt.elements': %d elements are too few for the eulerian mesh of %d pulleys (it needs "
                   "at least 1 per span and 2 per wrap: %d)\n",
                   sc.file.c_str(), NE, pulleys, 3 * pulleys);
      return false;
    }
    const double mean = elementLength(path);
    contact = contactParametersOf(sc, mean);
    ParameterError e = drive.setUp(sc.belt, lengths, circleParameters, pulleys, contact, mean);
    // Pulleys whose centres move take the stations with them (docs/model_moving_stations.md).
    bool moving = false;
    for (int p = 0; p < pulleys; ++p) moving = moving || movingCentre(circleParameters[p].kind);
    if (e.ok() && moving) e = drive.setUpMovingStations(path, elementsInPart);
    if (!e.ok()) {
      std::fprintf(stderr, "%s: invalid model parameter '%s'\n", sc.file.c_str(), e.parameter);
      return false;
    }
    if (!drive.setStepSize(sc.stepSize).ok()) {
      std::fprintf(stderr, "%s: key 'solver.step_size': invalid value %g\n", sc.file.c_str(), sc.stepSize);
      return false;
    }
    const ParameterError s = stepper.setUp(sc.integrator, sc.stepSize);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: key 'solver': invalid setting '%s'\n", sc.file.c_str(), s.parameter);
      return false;
    }
    return true;
  }
  static void place(const Drive& drive, const BeltPath<NP>& path, typename Drive::Vector& q) {
    double station[NE];
    for (int i = 0; i < NE; ++i) station[i] = drive.mesh().station(i);
    placeOnStations(drive, path, station, q);
  }
  static double elementLength(const Drive& drive, int e, double) { return drive.mesh().elementLength(e); }
  static double travelled(const typename Drive::Vector& q, const typename Drive::Vector& started) {
    return materialTravelled<NE, NP, kMaxSegments>(q, started);
  }
  // The static equilibrium (the scenario reader refuses start = "rest" on this mesh).
  static bool start(const Scenario& sc, Drive& drive, typename Drive::Vector& q, typename Drive::Vector& a,
                    const FrictionParameters& friction, RunInfo& info, int& iterations, const RunOptions& options) {
    a.setZero();
    return staticStart(sc, drive, q, friction, info.staticConverged, info.staticResidual, iterations, options);
  }
};

template <class Mesh, int NP>
int runClosedDrive(const Scenario& sc, const RunOptions& options) {
  static_assert(NP <= kMaxPulleys, "a build of more circles than a scenario may have");
  using Drive = typename Mesh::Drive;
  constexpr int NE = Drive::kElements;
  const int pulleys = static_cast<int>(sc.pulleys.size());
  if (pulleys < 2 || pulleys > NP) {
    std::fprintf(stderr, "%s: key 'pulley': %d pulleys, this build takes 2 to %d\n", sc.file.c_str(), pulleys, NP);
    return 2;
  }
  using Vector = typename Drive::Vector;
  // Large fixed-size objects live on the heap of the host program (the model itself never
  // allocates; on the target they are static).
  auto drive = std::make_unique<Drive>();
  auto integrator = std::make_unique<typename Mesh::Stepper>();

  // ---- geometry (docs/model_start_and_benchmark.md §8.1): belt centreline at r + h/2 on every pulley ----------------------
  PathCircle circles[NP];
  PulleyParameters circleParameters[NP];
  for (int p = 0; p < pulleys; ++p) {
    circleParameters[p] = sc.pulleys[p].circle;
    circles[p] = pathCircleOf(sc, p);
  }
  BeltPath<NP> path;
  const ParameterError e = buildBeltPath(circles, pulleys, path);
  if (!e.ok()) {
    std::fprintf(stderr, "%s: key 'pulley': belt path impossible (%s)\n", sc.file.c_str(), e.parameter);
    return 2;
  }
  const double length = Mesh::elementLength(path);
  const int segments = sc.segmentsPerElement;
  ContactParameters contact;
  if (!Mesh::setUp(sc, path, *drive, *integrator, circleParameters, pulleys, contact)) return 2;

  // ---- the start: static equilibrium (docs/model_start_and_benchmark.md §8.3-8.4), or the drawn path at rest -----------------
  RunInfo info;
  Vector q, a;
  Mesh::place(*drive, path, q);
  const auto wallStart = std::chrono::steady_clock::now();
  int iterations = 0;
  if (!Mesh::start(sc, *drive, q, a, contact.friction, info, iterations, options)) return 3;
  const Vector started = q;
  // Injected faults (docs/injected_faults.md): none touch the drive unless the scenario has them.
  InjectedFaultApplier<NP> faults;
  if (!faults.setUp(sc.faults, contact.friction, sc.belt.element.EA, circleParameters, pulleys).ok()) {
    std::fprintf(stderr, "%s: key 'fault': the injected faults do not fit this drive\n", sc.file.c_str());
    return 2;
  }
  // The emulated encoders and load cells (docs/injected_faults.md, "Sensors"): read after every step,
  // as the firmware's loop reads them every tick, when the scenario asks for them.
  const bool sensing = sensorsWanted(sc);
  EmulatedSensors<NP> sensors;
  if (!sensors.setUp(sc.sensors, sc.faults, pulleys).ok()) {
    std::fprintf(stderr, "%s: key 'sensors': the sensors do not fit this drive\n", sc.file.c_str());
    return 2;
  }

  // ---- dynamic run (the output folder is created only now, never mixed with old files) --------
  OutputFiles out;
  if (const int status = beginRun(options, out, *integrator, *drive, q, a)) return status;
  std::vector<float> stepMicros;
  RunTotals totals;
  std::vector<TimeRow> rows;
  // The tail window of the tail means (output_files.cpp, tailMeans: the last 0.15 s or 10 %):
  // each row in it adds the belt's samples to the wrap-angle bins of the pulleys they touch. It is
  // taken from the scenario's end time: a run that stops early (a fault) has fewer rows in it than
  // tailMeans counts, or none (the capstan check then reports -1, nothing checked).
  const double tailStart = sc.endTime - std::min(0.15, 0.1 * sc.endTime) - 1e-12;
  auto addWrapSamples = [&](const Vector& qq, const Vector& vv) {
    PathCircle now[NP];
    for (int p = 0; p < pulleys; ++p) {
      now[p] = circles[p];
      now[p].centre = Vector2(qq(Drive::pulleyDof(p, 0)), qq(Drive::pulleyDof(p, 1)));
    }
    BeltPath<NP> current;
    if (!buildBeltPath(now, pulleys, current).ok()) return;
    const double twoPi = 2.0 * std::acos(-1.0);
    for (int el = 0; el < NE; ++el) {
      for (int i = 0; i < segments; ++i) {
        BeltSample bs;
        if (sampleBelt(*drive, qq, vv, el, i, bs) != Status::kOk || bs.circle < 0) continue;
        const int p = bs.circle;
        const Vector2 r = bs.position - now[p].centre;
        const double direction = current.arcSweep[p] < 0.0 ? -1.0 : 1.0;
        double phi = direction * (std::atan2(r(1), r(0)) - current.arcStartAngle[p]);
        phi -= twoPi * std::floor((phi - WrapBins::kLowest) / twoPi);  // into [kLowest, kLowest + 2 pi)
        info.tailBins.add(p, phi, bs.axialForce, bs.stickSlip == 1 || bs.stickSlip == -1,
                          faults.frictionCoefficient(p));
      }
    }
  };
  auto sample = [&](double t, const IntervalHealth& health) {
    const Vector& qq = integrator->positions();
    const Vector& vv = integrator->velocities();
    TimeRow row;
    row.time = t;
    for (int p = 0; p < pulleys; ++p) {
      row.angle[p] = qq(Drive::pulleyDof(p, 2));
      row.omega[p] = vv(Drive::pulleyDof(p, 2));
      row.torque[p] = pulleyTorque(*drive, p, t);
      row.beltTorque[p] = drive->beltTorque(p);
      row.frictionCoefficient[p] = faults.frictionCoefficient(p);
      row.springRate[p] = circleParameters[p].arm.stiffness * faults.armStiffnessFactor(p);
      row.bearingDrag[p] = faults.bearingDragTorque(p);
      row.hubForce[p][0] = drive->hubForce(p)(0);
      row.hubForce[p][1] = drive->hubForce(p)(1);
      row.centre[p][0] = qq(Drive::pulleyDof(p, 0));
      row.centre[p][1] = qq(Drive::pulleyDof(p, 1));
      if (circleParameters[p].kind == PulleyKind::kTensionerArm) {
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
    row.materialTravelled = Mesh::travelled(qq, started);
    row.injectedFaults = faults.activeMask(t);
    row.axialStiffness = faults.axialStiffness();
    for (int p = 0; p < pulleys && sensing; ++p) {
      row.encoderCount[p] = sensors.encoderCount(p);
      row.loadCell[p] = sensors.loadCell(p);
    }
    row.health = health;
    rows.push_back(row);
    if (t >= tailStart) addWrapSamples(qq, vv);
  };
  auto applyFaults = [&](double t) { return faults.applyAt(*drive, t); };
  auto readSensors = [&](double t) {
    if (!sensing) return;
    const Vector& qq = integrator->positions();
    const Vector& vv = integrator->velocities();
    double angle[NP] = {}, spanForce[NP] = {};
    for (int p = 0; p < pulleys; ++p) {
      angle[p] = qq(Drive::pulleyDof(p, 2));
      spanForce[p] = measureSpan(*drive, qq, vv, path, p).force;
    }
    sensors.read(t, angle, spanForce);
  };
  readSensors(0.0);  // the first row's readings: the start (no fault acts at t = 0)
  runSteps(sc, *integrator, *drive, applyFaults, readSensors, sample, stepMicros, totals, options);
  const double wallTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

  // ---- end-of-run profile along the belt (spatial arc coordinate s_l of docs/model_start_and_benchmark.md §9.5) -----------
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
          ProfileRow{s, bs.axialForce, bs.axialVelocity, bs.normalStress, bs.tangentialStress, bs.stickSlip, bs.circle,
                     bs.position(0), bs.position(1), Mesh::elementLength(*drive, el, length) / segments});
    }
  }
  std::sort(profile.begin(), profile.end(), [](const ProfileRow& a, const ProfileRow& b) { return a.s < b.s; });

  info.scenario = &sc;
  info.elements = NE;
  info.pulleys = pulleys;
  for (int p = 0; p < pulleys; ++p) info.centrelineRadius[p] = circles[p].radius;
  info.beltLength = path.totalLength;
  info.driverArcStart = path.totalLength - circles[0].radius * std::fabs(path.arcSweep[0]);
  info.driverRadius = circles[0].radius;
  info.arcStart[0] = info.driverArcStart;
  double sl = 0.0;  // s_l along the drawn path: span 0, the arc on P2, span 1, ..., the arc on P1
  for (int p = 1; p < pulleys; ++p) {
    info.arcStart[p] = sl += path.spanLength[p - 1];
    sl += circles[p].radius * std::fabs(path.arcSweep[p]);
  }
  info.wallTime = wallTime;
  info.steps = static_cast<long long>(stepMicros.size());
  info.totals = totals;
  std::string error;
  if (!out.writeAll(info, rows, profile, stepMicros, sc.plots, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  if (options.progress) std::fprintf(stderr, "outputs in %s\n", options.outputDirectory.c_str());
  return totals.faulted ? 3 : 0;
}

template <int NE, int NP>
int runScenarioWith(const Scenario& sc, const RunOptions& options) {
  return runClosedDrive<MaterialMeshRun<NE, NP>, NP>(sc, options);
}
template <int NE, int NP>
int runEulerianScenarioWith(const Scenario& sc, const RunOptions& options) {
  return runClosedDrive<EulerianMeshRun<NE, NP>, NP>(sc, options);
}

}  // namespace beltsim::host
