// The plant as the real-time loop sees it: a closed belt drive of 2 to 8 pulleys (the paper's:
// motor pulley P1, load pulley P2) behind a fixed-size command (one input per pulley, its meaning
// fixed by the pulley's kind) and a fixed-size output. Everything is statically sized by the
// element count NE and the pulley capacity NP; the object is meant to live in static storage (it holds the belt drive, the
// integrator and the solver's matrices: tens of kilobytes, too big for a Cortex-M stack). The belt's
// mesh is a template argument: the material mesh (BeltDrive) or the eulerian mesh
// (EulerianBeltDrive); the two differ only in how the belt is set up and placed at the start.
//
// One step: command -> BeltDrive input -> TimeStepper::step (the reference stepping's bounded Newton
// and PNS loops, or the fixed-cost stepping's fixed work; bordered block-tridiagonal solve) -> output with the step's health. The plant does not decide
// what a non-converged step means for the loop; it reports it (see firmware/plant_loop.hpp).
#pragma once
#include <cstdint>
#include <type_traits>

#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/stepping/time_stepper.hpp"
#include "beltsim/system/emulated_sensors.hpp"
#include "beltsim/system/eulerian_belt_drive.hpp"
#include "beltsim/system/eulerian_belt_outputs.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/system/injected_faults.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace beltsim {

// Pulleys a plant can have (the HIL frames carry this many; protocol version 3).
constexpr int kMaxPlantPulleys = 8;

// The belt's mesh (docs/model_element.md §2.11): elements that travel with the belt (the paper's),
// or elements whose nodes stay on the belt's path while the material flows through them (no
// element passes a pulley, so no element-passing ripple; closed belts on fixed centres only).
enum class PlantMesh : std::uint8_t {
  kMaterial = 0,
  kEulerian = 1,
};

// How pulley 1 is driven when a configuration offers both (the firmware images build either
// from one scenario file; scenario_to_plant_config.py). Values as the PulleyInput ones.
enum class MotorMode : std::uint8_t {
  kSpeed = 1,   // command = angular velocity, rad/s (the drive supplies whatever torque it takes)
  kTorque = 2,  // command = motor torque, N m (the pulley's inertia includes the motor's)
};

// What a pulley's command input means; fixed by the pulley's kind (inputOf).
enum class PulleyInput : std::uint8_t {
  kNone = 0,        // fixed pulley: no input (its command must be 0)
  kSpeed = 1,       // speed-driven: angular velocity, rad/s, counter-clockwise positive
  kTorque = 2,      // torque-driven: motor torque, N m, counter-clockwise positive
  kLoadTorque = 3,  // every pulley free to turn (fixed axis, floating, tensioner arm): braking
                    // load torque, N m (positive opposes positive rotation; 0 for a free idler)
};

inline PulleyInput inputOf(PulleyKind kind) {
  switch (kind) {
    case PulleyKind::kSpeedDriven: return PulleyInput::kSpeed;
    case PulleyKind::kTorqueDriven: return PulleyInput::kTorque;
    case PulleyKind::kFixed: return PulleyInput::kNone;
    default: return PulleyInput::kLoadTorque;
  }
}

// One step's command, already validated by the caller: input[p] for pulley p, meaning inputOf
// its kind; entries beyond the pulley count are not read.
struct PlantCommand {
  double input[kMaxPlantPulleys] = {};
};

// Admissible command ranges; the loop rejects commands outside them before the model sees them.
struct PlantLimits {
  double maxMotorSpeed = 630.0;   // |rad/s| for speed inputs: an engine's crankshaft at 6,000 rpm
  double maxMotorTorque = 150.0;  // |N m| for torque inputs
  double maxLoadTorque = 150.0;   // |N m| for load-torque inputs
  // Plausibility guard on the result (a diverged step, e.g. the belt thrown off, fails it).
  double maxPulleySpeed = 2000.0;  // |rad/s|: a pulley a third of the crankshaft's size at 630 rad/s
  double maxSpanForce = 1.0e5;    // |N|
};

// The paper's drive (docs/model_start_and_benchmark.md §9.1): motor pulley P1 at the origin, load pulley P2 to its right with
// a 2 N m s/rad damper.
inline PulleyParameters paperPlantPulley(int p) {
  PulleyParameters c;
  c.kind = p == 0 ? PulleyKind::kSpeedDriven : PulleyKind::kFixedAxis;
  c.centre = p == 0 ? Vector2(0.0, 0.0) : Vector2(0.3141592653589793, 0.0);
  c.radius = 0.09995;
  c.inertia = 0.25;
  c.rotationalDamping = p == 0 ? 0.0 : 2.0;
  return c;
}

struct PlantConfig {
  BeltParameters belt = paperBelt();
  ContactPerArea contact;
  int segmentsPerElement = 4;
  // The pulleys in belt travel order (kind, centre, contact radius, inertia, damper, side,
  // support springs, tensioner arm); profiles are not used: the commands come from the loop.
  int pulleyCount = 2;
  PulleyParameters pulley[kMaxPlantPulleys] = {paperPlantPulley(0), paperPlantPulley(1)};
  IntegratorSettings integrator;
  double stepSize = 1e-3;                         // s
  StaticSettings statics;
  PlantLimits limits;
  // Injected faults scheduled over the run's time (docs/injected_faults.md); none by default.
  InjectedFaultSchedule faults;
  // What the emulated encoders and load cells resolve (emulated_sensors.hpp; the loop reads them).
  SensorSettings sensors;
  // The eulerian mesh's grading (eulerian_stations.hpp); read by a BeltDrivePlant of that mesh only.
  MeshGrading grading;
};

enum class PlantFault : std::uint8_t {
  kNone = 0,
  kNotStarted = 1,
  kModelStatus = 2,       // the integrator reported a fault (non-finite or degenerate state)
  kImplausibleState = 3,  // pulley speed or span force outside PlantLimits
};

struct PlantOutput {
  std::uint32_t step = 0;          // steps taken since start
  double time = 0.0;               // s
  int pulleyCount = 0;             // entries in use below (spans: as many as pulleys)
  double angle[kMaxPlantPulleys] = {};      // rad (unwrapped)
  double speed[kMaxPlantPulleys] = {};      // rad/s
  // N m, counter-clockwise positive: the torque the pulley's drive, load or axle applies to it (a
  // speed drive's reaction, a torque command, minus a braking load torque, a fixed pulley's holder)
  double torque[kMaxPlantPulleys] = {};
  double spanForce[kMaxPlantPulleys] = {};  // N, mean axial force in the middle of span k (pulley k -> k+1)
  double armAngle[kMaxPlantPulleys] = {};   // rad, tensioner arms only (0 for other pulleys)
  // Health of the step.
  bool converged = false;          // Newton and PNS both met their tolerances
  std::uint8_t newtonIterations = 0;  // total over the PNS loop
  std::uint8_t pnsIterations = 0;
  std::uint8_t jacobianUpdates = 0;   // Newton-matrix builds (full or partial) and factorizations in this step
  double residualNorm = 0.0;       // N: |r| of the step's last Newton residual (fixed-cost: before its correction)
  double pnsError = 0.0;           // N: e_PNS of the step's last post-Newton pass
  Status status = Status::kOk;
  PlantFault fault = PlantFault::kNone;
};

// NP: the pulleys compiled in (static sizes); a configuration uses 2..NP of them. The paper's
// drive runs on NP = 2: a build of more circles gives the same physics with different round-off
// (Eigen groups the border's reductions by their length), so 2-pulley plants keep their bits.
// Mesh: the belt's mesh, fixed by the build as NE is.
template <int NE, int NP = 2, PlantMesh Mesh = PlantMesh::kMaterial>
class BeltDrivePlant {
 public:
  static_assert(NP >= 2 && NP <= kMaxPlantPulleys, "2 to kMaxPlantPulleys pulleys");
  static constexpr int kPulleys = NP;
  static constexpr int kSegments = 4;  // capacity; the configuration may use 1..4
  static constexpr PlantMesh kMesh = Mesh;
  static constexpr bool kEulerian = Mesh == PlantMesh::kEulerian;
  using Drive = std::conditional_t<kEulerian, EulerianBeltDrive<NE, kPulleys, kSegments>,
                                   BeltDrive<NE, kPulleys, kSegments>>;
  using Vector = typename Drive::Vector;

  // Builds geometry, contact values and integrator; does not solve anything yet.
  ParameterError setUp(const PlantConfig& config) {
    config_ = config;
    started_ = false;
    if (config.segmentsPerElement < 1 || config.segmentsPerElement > kSegments)
      return ParameterError::invalid("segments_per_element");
    if (config.pulleyCount < 2 || config.pulleyCount > NP || !config.belt.closed)
      return ParameterError::invalid("pulley_count");  // a closed belt around 2..NP pulleys
    for (int p = 0; p < config.pulleyCount; ++p) {
      PulleyParameters& c = circle_[p];
      c = config.pulley[p];
      c.torque = RampProfile{};  // the commands drive the plant, not profiles
      c.speed = RampProfile{};
      pathCircle_[p] = beltPathCircle(c, config.belt);
    }
    ParameterError e = buildBeltPath(pathCircle_, config.pulleyCount, path_);
    if (!e.ok()) return e;
    // The contact values of an element of the mean length (the eulerian mesh's elements take them in
    // proportion to their own lengths).
    const double length = path_.totalLength / NE;
    const ContactParameters contact =
        contactFromPerArea(config.contact, config.belt, length, config.segmentsPerElement);
    friction_ = contact.friction;
    if constexpr (kEulerian) {
      double station[NE], lengths[NE];
      int elementsInPart[2 * kPulleys];
      e = eulerianStations(path_, config.grading, station, lengths, elementsInPart);
      if (!e.ok()) return e;
      e = drive_.setUp(config.belt, lengths, circle_, config.pulleyCount, contact, length);
      if (!e.ok()) return e;
      // Pulleys whose centres move take the stations with them (docs/model_moving_stations.md).
      bool moving = false;
      for (int p = 0; p < config.pulleyCount; ++p) moving = moving || movingCentre(circle_[p].kind);
      if (moving) e = drive_.setUpMovingStations(path_, elementsInPart);
      if (!e.ok()) return e;
      e = drive_.setStepSize(config.stepSize);  // the histories are carried by the mesh speed times h
    } else {
      e = drive_.setUp(config.belt, length, circle_, config.pulleyCount, contact);
    }
    if (!e.ok()) return e;
    e = faults_.setUp(config.faults, friction_, config.belt.element.EA, circle_, config.pulleyCount);
    if (!e.ok()) return e;
    return integrator_.setUp(config.integrator, config.stepSize);
  }

  // Initial state: belt placed on its path, static equilibrium under pre-tension and gravity
  // (bounded: StaticSettings), then the dynamic run starts at rest at t = 0.
  StaticResult start() {
    Vector& q = scratch_;
    if constexpr (kEulerian) {
      double station[NE];  // m, node i from node 0 along the path, as the mesh keeps them
      for (int i = 0; i < NE; ++i) station[i] = drive_.mesh().station(i);
      placeOnStations(drive_, path_, station, q);
    } else {
      placeOnPath(drive_, path_, q);
    }
    const StaticResult statics = solveStaticEquilibrium(drive_, q, config_.statics, friction_);
    if (statics.status == Status::kOk && statics.converged) {
      integrator_.initialize(q, Vector::Zero(), Vector::Zero(), 0.0);
      const Status prepared = integrator_.prepare(drive_);
      if (prepared != Status::kOk) {
        StaticResult failed = statics;
        failed.status = prepared;
        return failed;
      }
      started_ = true;
      steps_ = 0;
      for (int p = 0; p < kPulleys; ++p) speedInput_[p] = 0.0;  // the dynamic run starts at rest
    }
    return statics;
  }

  // One fixed step with a validated command.
  PlantOutput step(const PlantCommand& command) {
    PlantOutput out;
    if (!started_) {
      out.fault = PlantFault::kNotStarted;
      return out;
    }
    BeltDriveInput<kPulleys> input;
    for (int p = 0; p < config_.pulleyCount; ++p) {
      const PulleyInput kind = inputOf(circle_[p].kind);
      input.useCommand[p] = kind != PulleyInput::kNone;
      input.command[p] = kind == PulleyInput::kLoadTorque ? -command.input[p] : command.input[p];
      if (kind == PulleyInput::kSpeed) input.command[p] = appliedSpeed(p, command.input[p]);
    }
    drive_.setInput(input);
    // Scheduled injected faults at the step's end time (validated in setUp: cannot fail here).
    const ParameterError injected = faults_.applyAt(drive_, integrator_.time() + config_.stepSize);
    if (!injected.ok()) {
      out.fault = PlantFault::kModelStatus;
      out.status = injected.status;
      return out;
    }
    const StepStatistics st = integrator_.step(drive_);
    ++steps_;
    fillOutput(command, out);
    out.converged = (st.flags & (kStepNewtonNotConverged | kStepPnsNotConverged)) == 0;
    out.newtonIterations = static_cast<std::uint8_t>(st.newtonIterations > 255 ? 255 : st.newtonIterations);
    out.pnsIterations = static_cast<std::uint8_t>(st.pnsIterations > 255 ? 255 : st.pnsIterations);
    out.jacobianUpdates = static_cast<std::uint8_t>(st.jacobianUpdates > 255 ? 255 : st.jacobianUpdates);
    out.residualNorm = st.residualNorm;
    out.pnsError = st.pnsError;
    out.status = st.status;
    if (st.flags & kStepFault) {
      out.fault = PlantFault::kModelStatus;
    } else if (!plausible(out)) {
      out.fault = PlantFault::kImplausibleState;
    }
    return out;
  }

  // Tunable between steps (a wet belt, a changed load): both act from the next step's residual
  // on. The friction coefficient keeps every segment's stick/slip history; a kept Newton matrix
  // (reuse_jacobian, fixed-cost stepping) is not rebuilt for it: the residual decides the converged state.
  ParameterError setFrictionCoefficient(double mu) {
    if (!(isFinite(mu) && mu >= 0.0)) return ParameterError::invalid("friction_coefficient");
    FrictionParameters changed = friction_;
    changed.frictionCoefficient = mu;
    const ParameterError e = drive_.setFriction(changed);  // nothing changed if it fails
    if (!e.ok()) return e;
    friction_ = changed;
    faults_.setNominal(changed);  // scheduled friction faults now start from this coefficient
    config_.contact.frictionCoefficient = mu;
    return ParameterError{};
  }
  // Injected fault table k acts as scheduled (`active`) or not, with `value`, from the next step on,
  // each change ramping from where it is now (InjectedFault::tune; the FMU's fault<k> parameters).
  ParameterError tuneInjectedFault(int k, bool active, double value) {
    return faults_.tune(k, integrator_.time(), active, value);
  }
  // The value table k goes to now (the scenario's, or the last tune's).
  double injectedFaultTarget(int k) const { return faults_.schedule().fault[k].value; }
  // The model's time, s: the end of the last step (the start of the next).
  double time() const { return integrator_.time(); }
  // Table k's quantity now (InjectedFaultSchedule::currentValue).
  double injectedFaultValue(int k) const { return faults_.currentValue(k, integrator_.time()); }
  // Pulley 2's damper (the load of the paper's drive).
  ParameterError setLoadDamping(double damping) { return setPulleyDamping(1, damping); }
  // Pulley p's rotational damper, N m s/rad.
  ParameterError setPulleyDamping(int p, double damping) {
    if (!(isFinite(damping) && damping >= 0.0)) return ParameterError::invalid("load_damping");
    if (p < 0 || p >= config_.pulleyCount) return ParameterError::invalid("load_damping");
    config_.pulley[p].rotationalDamping = damping;
    circle_[p].rotationalDamping = damping;
    drive_.setRotationalDamping(p, damping);
    return ParameterError{};
  }

  // The outputs of the current state without a step (after start(): the static equilibrium).
  PlantOutput currentOutput(const PlantCommand& command) {
    PlantOutput out;
    if (!started_) {
      out.fault = PlantFault::kNotStarted;
      return out;
    }
    fillOutput(command, out);
    out.converged = true;
    return out;
  }

  const PlantConfig& config() const { return config_; }
  // Bit k: the configuration's injected fault table k acts at time t (its level is above 0).
  std::uint8_t activeInjectedFaults(double t) const { return faults_.activeMask(t); }
  bool started() const { return started_; }
  const Drive& drive() const { return drive_; }
  const TimeStepper<Drive>& integrator() const { return integrator_; }
  const Vector& positions() const { return integrator_.positions(); }
  const Vector& velocities() const { return integrator_.velocities(); }

 private:
  // The speed a speed-driven pulley p is given for this step: the command itself, or with
  // PulleyParameters::maxAcceleration > 0 the last step's speed moved towards the command by at
  // most maxAcceleration * h (a motor's speed loop at its torque limit). Exact arithmetic at both
  // ends: a command within reach is taken as it is.
  double appliedSpeed(int p, double command) {
    const double limit = circle_[p].maxAcceleration;
    if (!(limit > 0.0)) return command;
    const double reach = limit * config_.stepSize;
    const double last = speedInput_[p];
    double next = command;
    if (command > last + reach) next = last + reach;
    if (command < last - reach) next = last - reach;
    speedInput_[p] = next;
    return next;
  }

  void fillOutput(const PlantCommand& command, PlantOutput& out) {
    const Vector& q = integrator_.positions();
    const Vector& v = integrator_.velocities();
    out.step = steps_;
    out.time = integrator_.time();
    out.pulleyCount = config_.pulleyCount;
    for (int p = 0; p < config_.pulleyCount; ++p) {
      out.angle[p] = q(Drive::pulleyDof(p, 2));
      out.speed[p] = v(Drive::pulleyDof(p, 2));
      switch (inputOf(circle_[p].kind)) {
        case PulleyInput::kSpeed: out.torque[p] = drive_.driveTorque(p); break;
        case PulleyInput::kTorque: out.torque[p] = command.input[p]; break;
        case PulleyInput::kLoadTorque: out.torque[p] = -command.input[p]; break;
        case PulleyInput::kNone: out.torque[p] = -drive_.beltTorque(p); break;  // the holder's
      }
      out.spanForce[p] = measureSpan(drive_, q, v, path_, p).force;
      out.armAngle[p] = circle_[p].kind == PulleyKind::kTensionerArm ? drive_.armState(p, q, v).angle : 0.0;
    }
  }

  bool plausible(const PlantOutput& out) const {
    const PlantLimits& l = config_.limits;
    for (int p = 0; p < config_.pulleyCount; ++p) {
      if (!(isFinite(out.speed[p]) && isFinite(out.angle[p]) && isFinite(out.torque[p]))) return false;
      if (out.speed[p] > l.maxPulleySpeed || out.speed[p] < -l.maxPulleySpeed) return false;
      if (!(isFinite(out.spanForce[p]) && isFinite(out.armAngle[p]))) return false;
      if (out.spanForce[p] > l.maxSpanForce || out.spanForce[p] < -l.maxSpanForce) return false;
    }
    return true;
  }

  PlantConfig config_;
  PulleyParameters circle_[kPulleys];
  PathCircle pathCircle_[kPulleys];
  BeltPath<kPulleys> path_;
  FrictionParameters friction_;
  InjectedFaultApplier<kPulleys> faults_;
  Drive drive_;
  TimeStepper<Drive> integrator_;
  Vector scratch_ = Vector::Zero();
  bool started_ = false;
  std::uint32_t steps_ = 0;
  double speedInput_[kPulleys] = {};  // rad/s: the speed given to each speed-driven pulley last step
};

}  // namespace beltsim
