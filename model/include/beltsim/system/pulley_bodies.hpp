// The pulleys as rigid bodies (docs/model_drive_and_solver.md §6): their parameters in use, the commands that
// drive them, the tensioner arms' friction anchors, and each body's own rows of the residual and
// the Newton matrix (inertia, damper, applied torque, a floating centre's supports, a tensioner
// arm's spring). The belt's contact forces on them are added by the contact pairs (belt_drive.hpp).
//
// Injected faults (docs/injected_faults.md) change two of them during a run: a tensioner's spring
// rate (setArmStiffnessFactor) and a bearing drag on a pulley's rotation (setBearingDrag):
//   M_b = clamp(-k_b (phi - b) - c_b phi', -T, +T) - c_v phi'
// an elasto-plastic Coulomb torque T like the arm's friction (tensioner_arm.hpp), with one anchor
// angle b per pulley moved in the post-Newton step, plus a viscous part c_v. k_b is
// kBearingStickStiffness, c_b = 2 * 0.7071 * sqrt(k_b J): a pulley held by the drag stays within
// T / k_b of its anchor, so it can come to rest and stay there, which a regularized sign function
// cannot give.
#pragma once
#include <cmath>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/core/status.hpp"
#include "beltsim/system/drive_layout.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/static_phase.hpp"

namespace beltsim {

constexpr double kBearingStickStiffness = 1e4;  // k_b, N m/rad: the bearing drag's stick stiffness

// What the belt and the drive do to each pulley at the last residual (physical signs).
template <int NP>
struct PulleyReactions {
  double driveTorque[NP] = {};  // reaction of a prescribed rotation: the torque the drive applies, N m
  double beltTorque[NP] = {};   // torque of the belt's contact forces, N m (counter-clockwise)
  Vector2 hubForce[NP];         // force of the belt's contact forces on the centre, N
  double staticLockReaction = 0.0;  // static solve: the force the lock of node 0's x applies, N
};

template <int NE, int NP>
class PulleyBodies {
 public:
  using Layout = DriveLayout<NE, NP>;
  using Vector = typename Layout::Vector;

  // Unused circles (index >= count) are fixed and touch nothing.
  void setCount(int count) {
    count_ = count;
    for (int p = count; p < NP; ++p) {
      circle_[p] = PulleyParameters{};
      circle_[p].kind = PulleyKind::kFixed;
      circle_[p].radius = 1.0;
      circle_[p].inertia = 1.0;
    }
  }
  // Validates and stores circle p; a tensioner's arm geometry and friction anchor start here.
  ParameterError setUp(int p, const PulleyParameters& c) {
    const ParameterError e = validatePulleyParameters(c);
    if (!e.ok()) return e;
    if (c.kind == PulleyKind::kTensionerArm) {
      armGeometry_[p] = armGeometry(c.arm, c.centre, c.mass);
      armAnchor_[p] = armAnchorStart_[p] = 0.0;
      if (!(armGeometry_[p].equivalentMass > 0.0)) return ParameterError::invalid("arm.inertia");
    }
    circle_[p] = c;
    nominalArmStiffness_[p] = c.arm.stiffness;
    dragTorque_[p] = dragViscous_[p] = 0.0;
    dragAnchor_[p] = dragAnchorStart_[p] = 0.0;
    dragDamping_[p] = 2.0 * 0.7071067811865476 * std::sqrt(kBearingStickStiffness * c.inertia);
    return ParameterError::success();
  }
  int count() const { return count_; }
  const PulleyParameters& pulley(int p) const { return circle_[p]; }
  void setRotationalDamping(int p, double damping) { circle_[p].rotationalDamping = damping; }
  const ArmGeometry& armGeometryOf(int p) const { return armGeometry_[p]; }

  // ---- commands (docs/model_drive_and_solver.md §6) ----
  void setInput(const BeltDriveInput<NP>& input) {
    previousInput_ = input_;
    input_ = input;
  }
  void clearInput() { input_ = previousInput_ = BeltDriveInput<NP>{}; }
  const BeltDriveInput<NP>& input() const { return input_; }
  double prescribedSpeed(int p, double t) const {
    return input_.useCommand[p] ? input_.command[p] : circle_[p].speed.at(t);
  }
  double speedAtStepStart(int p, double t, double h) const {
    if (input_.useCommand[p] && previousInput_.useCommand[p]) return previousInput_.command[p];
    return circle_[p].speed.at(t - h);
  }
  double appliedTorque(int p, double t) const {
    double torque = circle_[p].torque.at(t);
    if (input_.useCommand[p] && circle_[p].kind != PulleyKind::kSpeedDriven) torque += input_.command[p];
    return torque;
  }

  CircleState state(const Vector& q, const Vector& v, int p) const {
    CircleState c;
    c.centre = Vector2(q(Layout::pulleyDof(p, 0)), q(Layout::pulleyDof(p, 1)));
    c.angle = q(Layout::pulleyDof(p, 2));
    c.velocity = Vector2(v(Layout::pulleyDof(p, 0)), v(Layout::pulleyDof(p, 1)));
    c.angularVelocity = v(Layout::pulleyDof(p, 2));
    return c;
  }
  ArmForce armState(int p, const Vector& q, const Vector& v, DriveMode mode) const {
    const CircleState cs = state(q, v, p);
    return armForce(circle_[p].arm, armGeometry_[p], cs.centre, cs.velocity, mode == DriveMode::kDynamic,
                    armAnchor_[p]);
  }
  // Translational mass of a moving centre: a tensioner's includes its arm (tensioner_arm.hpp).
  double centreMass(int p) const {
    return circle_[p].kind == PulleyKind::kTensionerArm ? armGeometry_[p].equivalentMass : circle_[p].mass;
  }

  // ---- injected faults (docs/injected_faults.md) ----
  // Tensioner p's spring rate as `factor` (0 < factor <= 1) of its scenario's: the torque at the
  // drawn position, k * preloadAngle, falls with it.
  ParameterError setArmStiffnessFactor(int p, double factor) {
    if (p < 0 || p >= count_ || circle_[p].kind != PulleyKind::kTensionerArm)
      return ParameterError::invalid("injected_fault.pulley");
    if (!(isFinite(factor) && factor > 0.0 && factor <= 1.0)) return ParameterError::invalid("injected_fault.value");
    circle_[p].arm.stiffness = nominalArmStiffness_[p] * factor;
    return ParameterError::success();
  }
  // Pulley p's bearing drag: Coulomb torque T (N m) and viscous coefficient c_v (N m s/rad), both
  // >= 0; a pulley whose rotation is prescribed (speed-driven, fixed) takes none.
  ParameterError setBearingDrag(int p, double torque, double viscous) {
    if (p < 0 || p >= count_ || !takesBearingDrag(circle_[p].kind)) return ParameterError::invalid("injected_fault.pulley");
    if (!(isFinite(torque) && torque >= 0.0 && isFinite(viscous) && viscous >= 0.0))
      return ParameterError::invalid("injected_fault.value");
    dragTorque_[p] = torque;
    dragViscous_[p] = viscous;
    return ParameterError::success();
  }
  static bool takesBearingDrag(PulleyKind kind) {
    return kind != PulleyKind::kSpeedDriven && kind != PulleyKind::kFixed;
  }
  // The bearing drag's torque on pulley p (counter-clockwise, N m) at angle phi and rate omega, and
  // its slopes -dM/dphi and -dM/domega; 0 without a drag.
  double bearingTorque(int p, double phi, double omega, double& stiffness, double& damping) const {
    stiffness = 0.0;
    damping = dragViscous_[p];
    double torque = -dragViscous_[p] * omega;
    const double T = dragTorque_[p];
    if (T > 0.0) {
      const double elastic = -kBearingStickStiffness * (phi - dragAnchor_[p]) - dragDamping_[p] * omega;
      if (elastic < -T) {
        torque -= T;
      } else if (elastic > T) {
        torque += T;
      } else {
        torque += elastic;
        stiffness = kBearingStickStiffness;
        damping += dragDamping_[p];
      }
    }
    return torque;
  }
  bool hasBearingDrag(int p) const { return dragTorque_[p] > 0.0 || dragViscous_[p] > 0.0; }
  double bearingAnchor(int p) const { return dragAnchor_[p]; }

  // ---- tensioner friction and bearing drag anchors (docs/model_drive_and_solver.md §6) ----
  void beginStep() {
    for (int p = 0; p < count_; ++p) {
      armAnchorStart_[p] = armAnchor_[p];
      dragAnchorStart_[p] = dragAnchor_[p];
    }
  }
  void rejectStep() {
    for (int p = 0; p < count_; ++p) {
      armAnchor_[p] = armAnchorStart_[p];
      dragAnchor_[p] = dragAnchorStart_[p];
    }
  }
  // The arms' share of the post-Newton step: each friction anchor from its start-of-step anchor,
  // as the belt's segments; the change, as a force at the pulley (N), raises `error`.
  // A bearing's anchor moves the same way from its start-of-step anchor; the change of the drag's
  // torque it makes, as a force at the pulley's radius (N), raises `error` (a sliding bearing moves
  // its anchor every step and keeps its torque: no error). Without a Coulomb drag the anchor
  // follows the pulley's angle, so a drag that sets in starts from where the pulley is.
  void postNewtonStep(const Vector& q, const Vector& v, DriveMode mode, double& error) {
    for (int p = 0; p < count_ && mode == DriveMode::kDynamic; ++p) {
      if (!takesBearingDrag(circle_[p].kind)) continue;
      const double phi = q(Layout::pulleyDof(p, 2)), omega = v(Layout::pulleyDof(p, 2));
      const double T = dragTorque_[p];
      if (!(T > 0.0)) {
        dragAnchor_[p] = phi;
        continue;
      }
      const double elastic = -kBearingStickStiffness * (phi - dragAnchorStart_[p]);
      const double anchor = elastic < -T  ? phi - T / kBearingStickStiffness
                            : elastic > T ? phi + T / kBearingStickStiffness
                                          : dragAnchorStart_[p];
      double slope = 0.0, damping = 0.0;
      const double before = bearingTorque(p, phi, omega, slope, damping);
      dragAnchor_[p] = anchor;
      const double change = std::fabs(bearingTorque(p, phi, omega, slope, damping) - before) / circle_[p].radius;
      if (change > error) error = change;
    }
    for (int p = 0; p < count_; ++p) {
      const PulleyParameters& c = circle_[p];
      if (c.kind != PulleyKind::kTensionerArm || !hasArmFriction(c.arm) || mode != DriveMode::kDynamic) continue;
      const double anchor = updateArmAnchor(c.arm, armAnchorStart_[p], armState(p, q, v, mode).angle);
      const double change = std::fabs(anchor - armAnchor_[p]) * c.arm.frictionStiffness / armGeometry_[p].length;
      if (change > error) error = change;
      armAnchor_[p] = anchor;
    }
  }
  // Tensioner friction anchored where the arm is, bearing anchors where the pulleys are: no
  // friction torque at the start.
  void anchorArms(const Vector& q, const Vector& v, DriveMode mode) {
    for (int p = 0; p < count_; ++p) {
      if (circle_[p].kind == PulleyKind::kTensionerArm) armAnchor_[p] = armAnchorStart_[p] = armState(p, q, v,
          mode).angle;
      dragAnchor_[p] = dragAnchorStart_[p] = q(Layout::pulleyDof(p, 2));
    }
  }

  // ---- the body's rows ----
  void addResidual(int p, const Vector& q, const Vector& v, const Vector& a, double t, const StaticPhase<Vector>& phase,
                   Vector& r) const {
    const PulleyParameters& c = circle_[p];
    const int ix = Layout::pulleyDof(p, 0), iy = Layout::pulleyDof(p, 1), ip = Layout::pulleyDof(p, 2);
    const bool isStatic = phase.isStatic();
    if (c.kind == PulleyKind::kTensionerArm) {
      const ArmForce f = armState(p, q, v, phase.mode);
      const double m = centreMass(p);
      for (int l = 0; l < 2; ++l) {
        const int i = Layout::pulleyDof(p, l);
        r(i) += (isStatic ? phase.stabilizer * m * (q(i) - phase.previous(i)) : m * a(i)) - f.force(l);
      }
      if (isStatic) return;
    }
    if (isStatic) {
      if (c.kind == PulleyKind::kFloating) {
        r(ix) += c.supportStiffness * (q(ix) - c.centre(0)) + phase.stabilizer * c.mass * (q(ix) - phase.previous(ix)) -
                 phase.loadFactor * c.force(0);
        r(iy) += c.supportStiffness * (q(iy) - c.centre(1)) + phase.stabilizer * c.mass * (q(iy) - phase.previous(iy)) -
                 phase.loadFactor * c.force(1);
      }
      return;
    }
    r(ip) += c.inertia * a(ip) + c.rotationalDamping * v(ip) - appliedTorque(p, t);
    if (hasBearingDrag(p)) {
      double stiffness = 0.0, damping = 0.0;
      r(ip) -= bearingTorque(p, q(ip), v(ip), stiffness, damping);
    }
    if (c.kind == PulleyKind::kFloating) {
      r(ix) += c.mass * a(ix) + c.supportStiffness * (q(ix) - c.centre(0)) + c.supportDamping * v(ix) - c.force(0);
      r(iy) += c.mass * a(iy) + c.supportStiffness * (q(iy) - c.centre(1)) + c.supportDamping * v(iy) - c.force(1);
    }
  }

  // massFactor M + stiffnessFactor K + dampingFactor D of body p, added through
  // matrix.addEntry(row, col, value) in system coordinates.
  template <class Matrix>
  void addMatrix(int p, const Vector& q, const Vector& v, double massFactor, double stiffnessFactor,
                 double dampingFactor, DriveMode mode, Matrix& matrix) const {
    const PulleyParameters& c = circle_[p];
    const int ip = Layout::pulleyDof(p, 2);
    const bool isStatic = mode == DriveMode::kStatic;
    if (c.kind == PulleyKind::kTensionerArm) {
      const ArmForce f = armState(p, q, v, mode);
      const double m = centreMass(p);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          // (f.damping is zero in the static solve.)
          const double value = stiffnessFactor * f.stiffness(i, j) + dampingFactor * f.damping(i, j);
          matrix.addEntry(Layout::pulleyDof(p, i), Layout::pulleyDof(p, j), i == j ? value + massFactor * m : value);
        }
      if (isStatic) return;
    }
    if (isStatic) {
      if (c.kind == PulleyKind::kFloating) {
        for (int l = 0; l < 2; ++l)
          matrix.addEntry(Layout::pulleyDof(p, l), Layout::pulleyDof(p, l),
                          stiffnessFactor * c.supportStiffness + massFactor * c.mass);
      }
      return;
    }
    if (hasBearingDrag(p)) {
      double stiffness = 0.0, damping = 0.0;
      bearingTorque(p, q(ip), v(ip), stiffness, damping);
      matrix.addEntry(ip, ip, massFactor * c.inertia + dampingFactor * (c.rotationalDamping + damping) +
                                  stiffnessFactor * stiffness);
    } else {
      matrix.addEntry(ip, ip, massFactor * c.inertia + dampingFactor * c.rotationalDamping);
    }
    if (c.kind == PulleyKind::kFloating) {
      for (int l = 0; l < 2; ++l)
        matrix.addEntry(Layout::pulleyDof(p, l), Layout::pulleyDof(p, l),
                        massFactor * c.mass + stiffnessFactor * c.supportStiffness + dampingFactor * c.supportDamping);
    }
  }

 private:
  PulleyParameters circle_[NP];
  int count_ = NP;
  ArmGeometry armGeometry_[NP];
  double armAnchor_[NP] = {};       // tensioner friction anchor, rad from the drawn position
  double armAnchorStart_[NP] = {};  // the same at the start of the step
  double nominalArmStiffness_[NP] = {};  // a tensioner's spring rate without a fault, N m/rad
  double dragTorque_[NP] = {};      // bearing drag: Coulomb torque T, N m
  double dragViscous_[NP] = {};     // bearing drag: c_v, N m s/rad
  double dragDamping_[NP] = {};     // bearing drag: c_b of the stick, N m s/rad
  double dragAnchor_[NP] = {};      // bearing drag anchor b, rad
  double dragAnchorStart_[NP] = {};  // the same at the start of the step
  BeltDriveInput<NP> input_;
  BeltDriveInput<NP> previousInput_;
};

}  // namespace beltsim
