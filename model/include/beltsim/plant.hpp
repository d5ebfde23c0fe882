// The plant as the real-time loop sees it: a two-pulley belt drive (motor pulley P1, load pulley
// P2) behind a fixed-size command and a fixed-size output. Everything is statically sized by the
// element count NE; the object is meant to live in static storage (it holds the belt drive, the
// integrator and the solver's matrices: tens of kilobytes, too big for a Cortex-M stack).
//
// One step: command -> BeltDrive input -> TimeStepper::step (the reference scheme's bounded Newton
// and PNS loops, or the fixed-cost scheme's fixed work; bordered block-tridiagonal solve) -> output with the step's health. The plant does not decide
// what a non-converged step means for the loop; it reports it (see firmware/plant_loop.hpp).
#pragma once
#include <cstdint>

#include "beltsim/belt_drive.hpp"
#include "beltsim/belt_geometry.hpp"
#include "beltsim/belt_outputs.hpp"
#include "beltsim/time_stepper.hpp"
#include "beltsim/paper_parameters.hpp"
#include "beltsim/static_equilibrium.hpp"

namespace beltsim {

// How the motor pulley P1 is driven; fixed by the configuration.
enum class MotorMode : std::uint8_t {
  kSpeed = 1,   // command = angular velocity of P1, rad/s (the drive supplies whatever torque it takes)
  kTorque = 2,  // command = motor torque on P1, N m (P1's inertia includes the motor's)
};

// One step's command, already validated by the caller.
struct PlantCommand {
  double motor = 0.0;       // rad/s (kSpeed) or N m (kTorque), counter-clockwise positive
  double loadTorque = 0.0;  // N m, braking torque on P2 (applied torque = -loadTorque)
};

// Admissible command ranges; the loop rejects commands outside them before the model sees them.
struct PlantLimits {
  double maxMotorSpeed = 40.0;    // |rad/s| for kSpeed commands
  double maxMotorTorque = 150.0;  // |N m| for kTorque commands
  double maxLoadTorque = 150.0;   // |N m|
  // Plausibility guard on the result (a diverged step, e.g. the belt thrown off, fails it).
  double maxPulleySpeed = 200.0;  // |rad/s|
  double maxSpanForce = 1.0e5;    // |N|
};

struct PlantConfig {
  MotorMode motorMode = MotorMode::kSpeed;
  BeltParameters belt = paperBelt();
  ContactPerArea contact;
  int segmentsPerElement = 4;
  double pulleyRadius[2] = {0.09995, 0.09995};    // m, contact radius
  Vector2 pulleyCentre[2] = {Vector2(0.0, 0.0), Vector2(0.3141592653589793, 0.0)};
  double pulleyInertia[2] = {0.25, 0.25};         // kg m^2
  double pulleyDamping[2] = {0.0, 2.0};           // N m s/rad
  IntegratorSettings integrator;
  double stepSize = 1e-3;                         // s
  StaticSettings statics;
  PlantLimits limits;
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
  double angle[2] = {};            // rad, P1 and P2 (unwrapped)
  double speed[2] = {};            // rad/s
  double motorTorque = 0.0;        // N m: the drive's reaction (kSpeed) or the command (kTorque)
  double loadTorque = 0.0;         // N m, braking torque on P2
  double spanForce[2] = {};        // N, mean axial force in the middle of span 1 (P1->P2) and span 2
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

template <int NE>
class BeltDrivePlant {
 public:
  static constexpr int kPulleys = 2;
  static constexpr int kSegments = 4;  // capacity; the configuration may use 1..4
  using Drive = BeltDrive<NE, kPulleys, kSegments>;
  using Vector = typename Drive::Vector;

  // Builds geometry, contact values and integrator; does not solve anything yet.
  ParameterError setUp(const PlantConfig& config) {
    config_ = config;
    started_ = false;
    if (config.segmentsPerElement < 1 || config.segmentsPerElement > kSegments)
      return ParameterError::invalid("segments_per_element");
    if (config.motorMode != MotorMode::kSpeed && config.motorMode != MotorMode::kTorque)
      return ParameterError::invalid("motor_mode");
    for (int p = 0; p < kPulleys; ++p) {
      CircleParameters& c = circle_[p];
      c = CircleParameters{};
      c.kind = p == 0 ? (config.motorMode == MotorMode::kSpeed ? CircleKind::kSpeedDriven : CircleKind::kTorqueDriven)
                      : CircleKind::kFixedAxis;
      c.centre = config.pulleyCentre[p];
      c.radius = config.pulleyRadius[p];
      c.inertia = config.pulleyInertia[p];
      c.rotationalDamping = config.pulleyDamping[p];
      pathCircle_[p] = PathCircle{c.centre, c.radius + 0.5 * config.belt.thickness * c.side, c.side};
    }
    ParameterError e = buildBeltPath(pathCircle_, kPulleys, path_);
    if (!e.ok()) return e;
    const double length = path_.totalLength / NE;
    const ContactParameters contact =
        contactFromPerArea(config.contact, config.belt, length, config.segmentsPerElement);
    friction_ = contact.friction;
    e = drive_.setUp(config.belt, length, circle_, contact);
    if (!e.ok()) return e;
    return integrator_.setUp(config.integrator, config.stepSize);
  }

  // Initial state: belt placed on its path, static equilibrium under pre-tension and gravity
  // (bounded: StaticSettings), then the dynamic run starts at rest at t = 0.
  StaticResult start() {
    Vector& q = scratch_;
    placeOnPath(drive_, path_, q);
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
    input.useCommand[0] = input.useCommand[1] = true;
    input.command[0] = command.motor;
    input.command[1] = -command.loadTorque;
    drive_.setInput(input);
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
  // (PC configuration) is not rebuilt for it: the residual decides the converged state.
  ParameterError setFrictionCoefficient(double mu) {
    if (!(isFinite(mu) && mu >= 0.0)) return ParameterError::invalid("friction_coefficient");
    friction_.frictionCoefficient = mu;
    config_.contact.frictionCoefficient = mu;
    drive_.setFriction(friction_);
    return ParameterError{};
  }
  ParameterError setLoadDamping(double damping) {
    if (!(isFinite(damping) && damping >= 0.0)) return ParameterError::invalid("load_damping");
    config_.pulleyDamping[1] = damping;
    circle_[1].rotationalDamping = damping;
    drive_.setRotationalDamping(1, damping);
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
  bool started() const { return started_; }
  const Drive& drive() const { return drive_; }
  const Vector& positions() const { return integrator_.positions(); }
  const Vector& velocities() const { return integrator_.velocities(); }

 private:
  void fillOutput(const PlantCommand& command, PlantOutput& out) {
    const Vector& q = integrator_.positions();
    const Vector& v = integrator_.velocities();
    out.step = steps_;
    out.time = integrator_.time();
    for (int p = 0; p < kPulleys; ++p) {
      out.angle[p] = q(Drive::circleDof(p, 2));
      out.speed[p] = v(Drive::circleDof(p, 2));
    }
    out.motorTorque = config_.motorMode == MotorMode::kSpeed ? drive_.driveTorque(0) : command.motor;
    out.loadTorque = command.loadTorque;
    for (int k = 0; k < kPulleys; ++k) out.spanForce[k] = measureSpan(drive_, q, v, path_, k).force;
  }

  bool plausible(const PlantOutput& out) const {
    const PlantLimits& l = config_.limits;
    for (int p = 0; p < kPulleys; ++p) {
      if (!(isFinite(out.speed[p]) && isFinite(out.angle[p]))) return false;
      if (out.speed[p] > l.maxPulleySpeed || out.speed[p] < -l.maxPulleySpeed) return false;
      if (!isFinite(out.spanForce[p])) return false;
      if (out.spanForce[p] > l.maxSpanForce || out.spanForce[p] < -l.maxSpanForce) return false;
    }
    return isFinite(out.motorTorque);
  }

  PlantConfig config_;
  CircleParameters circle_[kPulleys];
  PathCircle pathCircle_[kPulleys];
  BeltPath<kPulleys> path_;
  FrictionParameters friction_;
  Drive drive_;
  TimeStepper<Drive> integrator_;
  Vector scratch_ = Vector::Zero();
  bool started_ = false;
  std::uint32_t steps_ = 0;
};

}  // namespace beltsim
