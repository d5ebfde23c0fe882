// What a belt drive is whatever its mesh (docs/model_drive_and_solver.md §6, §7.4): the belt's
// parameters, the pulley bodies with their commands, the contact pair of every element with every
// pulley, the reactions the pairs leave on the pulleys, the static phase's controls, the injected
// faults that act on pulleys and pairs, and the prescribed rows. Both drives are one of these plus
// a mesh and its Newton matrix: BeltDrive (elements that travel with the belt, belt_drive.hpp) and
// EulerianBeltDrive (elements that stay on the belt's path, eulerian_belt_drive.hpp).
//
// The pulleys and the pairs live in the layout's coordinates (drive_layout.hpp): a mesh with more
// unknowns hands their head over. A pair's contact values are those of setUp's contact scaled by
// its element's contact scale, which its mesh keeps (1 on a mesh of equal elements): the contact
// stiffness and damping, the bristle stiffness and the velocity penalty, all per segment of its
// element. The shared part keeps no per-element constant of its own.
#pragma once
#include <cstdint>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/drive_layout.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/prescribed_rows.hpp"
#include "beltsim/system/pulley_bodies.hpp"
#include "beltsim/system/static_phase.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class PulleysAndPairs {
 public:
  using Layout = DriveLayout<NE, NP>;
  using LayoutVector = typename Layout::Vector;
  using Pair = ContactPair<NCS>;
  using Mode = DriveMode;
  static constexpr int kElements = NE;
  static constexpr int kPulleys = NP;
  static constexpr int nodeDof(int node, int local) { return Layout::nodeDof(node, local); }
  static constexpr int pulleyDof(int p, int local) { return Layout::pulleyDof(p, local); }

  // ---- set-up ---------------------------------------------------------------------------------
  // The belt and the first pulleyCount (1..NP; an open cable 0..NP) pulleys; the pulleys' commands
  // cleared (a drive set up again, a plant restarted or an FMU reset, has none). The pairs follow,
  // element by element (setUpPairs).
  ParameterError setUpPulleys(const BeltParameters& belt, const PulleyParameters* circles, int pulleyCount) {
    if (pulleyCount < (belt.closed ? 1 : 0) || pulleyCount > NP) return ParameterError::invalid("circle.count");
    if (!(isFinite(belt.thickness) && belt.thickness >= 0.0)) return ParameterError::invalid("belt.thickness");
    if (!(isFinite(belt.width) && belt.width > 0.0)) return ParameterError::invalid("belt.width");
    ++revision_;
    belt_ = belt;
    pulleys_.setCount(pulleyCount);
    pulleys_.clearInput();
    for (int p = 0; p < pulleyCount; ++p) {
      const ParameterError e = pulleys_.setUp(p, circles[p]);
      if (!e.ok()) return e;
    }
    return ParameterError::success();
  }
  // Element e's pairs with every pulley in use: setUp's contact values times contactScale, for an
  // element of mesh length elementLength (docs/model_contact.md §4.1, §4.11). `contact` is kept as
  // the drive's (the last call's).
  ParameterError setUpPairs(int e, const ContactParameters& contact, double elementLength, double contactScale) {
    if (!(isFinite(contactScale) && contactScale > 0.0)) return ParameterError::invalid("contactScale");
    contact_ = contact;
    ContactParameters own = contact;
    own.contactStiffness *= contactScale;
    own.contactDamping *= contactScale;
    own.friction = scaledFriction(contact.friction, contactScale);
    for (int p = 0; p < pulleyCount(); ++p) {
      const ParameterError error = pair_[e][p].setUp(pairContact(own, pulleys_.pulley(p), belt_, elementLength));
      if (!error.ok()) return error;
    }
    return ParameterError::success();
  }
  // The scale of the node rows that replace a prescribed unknown's (prescribed_rows.hpp), kg.
  void setLumpedNodeMass(double mass) { lumpedNodeMass_ = mass; }
  double lumpedNodeMass() const { return lumpedNodeMass_; }

  const BeltParameters& belt() const { return belt_; }
  // Contact parameters as given to setUp (per-pulley radius and offset, and the element's scale,
  // are in each pair's).
  const ContactParameters& contact() const { return contact_; }
  const PulleyParameters& pulley(int p) const { return pulleys_.pulley(p); }
  // Pulleys in use (the first pulleyCount() of the NP compiled ones).
  int pulleyCount() const { return pulleys_.count(); }
  Pair& pair(int e, int p) { return pair_[e][p]; }
  const Pair& pair(int e, int p) const { return pair_[e][p]; }
  int nextNode(int e) const { return belt_.closed && e == NE - 1 ? 0 : e + 1; }  // element e's second node

  // ---- commands (pulley_bodies.hpp) ----------------------------------------------------------------
  // Called once per step, before it: the previous step's input is kept, so that a speed command
  // that changes from step to step gives the drive torque its J (omega_k - omega_k-1) / h.
  void setInput(const BeltDriveInput<NP>& input) { pulleys_.setInput(input); }
  const BeltDriveInput<NP>& input() const { return pulleys_.input(); }
  // Prescribed angular velocity of a speed-driven pulley at time t.
  double prescribedSpeed(int p, double t) const { return pulleys_.prescribedSpeed(p, t); }
  // Prescribed angular velocity at the start of the step that ends at t: the previous step's
  // command when commands drive the pulley, the profile at t - h otherwise.
  double speedAtStepStart(int p, double t, double h) const { return pulleys_.speedAtStepStart(p, t, h); }
  // Applied physical torque on pulley p at time t (positive counter-clockwise).
  double appliedTorque(int p, double t) const { return pulleys_.appliedTorque(p, t); }
  CircleState circleState(const LayoutVector& q, const LayoutVector& v, int p) const { return pulleys_.state(q, v, p); }

  // ---- static-phase controls (static_phase.hpp, docs/model_start_and_benchmark.md §8.3) ------------
  void setMode(Mode mode) { phase_.mode = mode; }
  Mode mode() const { return phase_.mode; }
  // Static solve: load factor on gravity, stabilizer s (LHS + s M (q - qPrevious)), the locked
  // positions (pulley rotations, node 0's x), and the previous load step's q.
  void setStaticLoad(double loadFactor, double stabilizer, const LayoutVector& previous, const LayoutVector& locks) {
    phase_.loadFactor = loadFactor;
    phase_.stabilizer = stabilizer;
    phase_.previous = previous;
    phase_.locks = locks;
  }
  // Viscous damper of pulley p (N m s/rad), from the next residual on.
  void setRotationalDamping(int p, double damping) { pulleys_.setRotationalDamping(p, damping); }

  // ---- parameters changed during a run (the static phase, injected faults; setFriction below) ------
  // A tensioner's spring rate and a pulley's bearing drag (injected faults, pulley_bodies.hpp).
  ParameterError setArmStiffnessFactor(int p, double factor) {
    ++revision_;
    return pulleys_.setArmStiffnessFactor(p, factor);
  }
  ParameterError setBearingDrag(int p, double torque, double viscous) {
    ++revision_;
    return pulleys_.setBearingDrag(p, torque, viscous);
  }
  // Counts the changes of parameters (set-up included): a cache of forces is valid at one count.
  std::uint32_t revision() const { return revision_; }

  // ---- the contact states in the residual ----------------------------------------------------------
  // false (the reference, docs/model_contact.md §4.6): the residual keeps every segment's contact
  // flag and stick/slip state as the last post-Newton step left them. true (the fixed-cost
  // stepping): the residual decides them at each evaluation (ContactPair::evaluateDecided) for the
  // pairs that can touch their pulley within the step: a start-of-step gap within kDecisionMargin,
  // far above what a segment moves towards a pulley in one step (about 0.15 mm for a belt entering
  // a 0.1 m pulley at 1.2 m/s with 1 ms steps); a pair outside it is picked up in the next step.
  static constexpr double kDecisionMargin = 1e-3;  // m
  void setDecideInNewton(bool decide) { decideInNewton_ = decide; }
  bool decidesInNewton() const { return decideInNewton_; }
  // Whether a pair takes part in this residual: one that may touch (deciding) or has a segment
  // flagged (holding the states).
  bool evaluates(const Pair& pair) const {
    return decideInNewton_ ? pair.candidate(kDecisionMargin) : pair.anyFlagged();
  }

  // ---- the residual's pulley rows ------------------------------------------------------------------
  // For each compiled pulley: its reactions cleared; for one in use, pairsOf(p, its state) adds its
  // pairs (each through addPairForces); then the pulley body's own rows.
  template <class PairsOf>
  Status addPulleyRows(const IterationPoint<LayoutVector>& point, LayoutVector& r, PairsOf&& pairsOf) {
    for (int p = 0; p < NP; ++p) {
      reactions_.beltTorque[p] = 0.0;
      reactions_.hubForce[p] = Vector2::Zero();
      if (p < pulleyCount()) {
        const Status s = pairsOf(p, pulleys_.state(*point.q, *point.v, p));
        if (s != Status::kOk) return s;
      }
      pulleys_.addResidual(p, *point.q, *point.v, *point.a, point.time, phase_, r);
    }
    return Status::kOk;
  }
  // A pair's forces on pulley p's rows (the element's rows are its mesh's), and the belt's torque
  // and hub force on the pulley (LHS -> physical).
  void addPairForces(int p, const PairForces& f, LayoutVector& r) {
    r(pulleyDof(p, 0)) += f.circleForce(0);
    r(pulleyDof(p, 1)) += f.circleForce(1);
    r(pulleyDof(p, 2)) += f.circleTorque;
    reactions_.beltTorque[p] -= f.circleTorque;
    reactions_.hubForce[p] -= f.circleForce;
  }
  // The prescribed unknowns' rows (prescribed_rows.hpp) and their reactions.
  void applyPrescribed(const IterationPoint<LayoutVector>& point, LayoutVector& r) {
    prescribed().applyToResidual(point, phase_, reactions_, r);
  }

  // ---- step boundaries -----------------------------------------------------------------------------
  // Back to the start-of-step history (a step that faulted after its residuals decided states).
  void rejectStep() {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair_[e][p].rejectStep();
    pulleys_.rejectStep();
  }

  // ---- outputs at the last residual ----------------------------------------------------------------
  // Static solve of a closed belt: the force (N, physical, along x) that the lock of node 0's x
  // applies to the belt, part of the belt's free body around pulley 1 (node 0 is where the belt
  // leaves it); not zero, as the bristles' tiny static stiffness does not quite balance it.
  double staticLockReaction() const { return reactions_.staticLockReaction; }
  // Reaction of a prescribed pulley rotation: the torque the drive applies (physical, positive
  // counter-clockwise), N m.
  double driveTorque(int p) const { return reactions_.driveTorque[p]; }
  // Torque of the belt's contact forces on pulley p (physical, positive counter-clockwise), N m.
  // At steady state on the load pulley: -(applied load + damper torque).
  double beltTorque(int p) const { return reactions_.beltTorque[p]; }
  // Force of the belt's contact forces on pulley p (physical), N: what its axle (or, for a
  // floating pulley, its support) carries.
  Vector2 hubForce(int p) const { return reactions_.hubForce[p]; }
  // Tensioner arm of pulley p at coordinates q, velocities v: its angle from the drawn position
  // (rad, counter-clockwise), spring torque and total torque about the pivot.
  ArmForce armState(int p, const LayoutVector& q, const LayoutVector& v) const {
    return pulleys_.armState(p, q, v, phase_.mode);
  }
  const ArmGeometry& armGeometryOf(int p) const { return pulleys_.armGeometryOf(p); }

  // ---- what the Newton-matrix builders read ----------------------------------------------------------
  const PulleyBodies<NE, NP>& pulleys() const { return pulleys_; }
  const StaticPhase<LayoutVector>& phase() const { return phase_; }
  PrescribedRows<NE, NP> prescribed() const { return {pulleys_, belt_, phase_.mode, lumpedNodeMass_}; }

 protected:
  // Friction of every pair (static phase: mu = 0, mu_k tiny; dynamic: nominal) or of pulley
  // `only`'s (an injected fault), per segment of an element of contact scale 1, each pair keeping
  // its history; contactScale(e) is element e's (its mesh's). Every pair's scaled values are
  // checked before any is written: an invalid value changes nothing. Each drive's setFriction.
  template <class ContactScale>
  ParameterError setScaledFriction(const FrictionParameters& friction, int only, const ContactScale& contactScale) {
    if (only < -1 || only >= pulleyCount()) return ParameterError::invalid("pulley");
    const int first = only < 0 ? 0 : only, last = only < 0 ? pulleyCount() - 1 : only;
    for (int e = 0; e < NE; ++e)
      for (int p = first; p <= last; ++p) {
        const ParameterError error = pair_[e][p].checkFriction(scaledFriction(friction, contactScale(e)));
        if (!error.ok()) return error;
      }
    ++revision_;
    for (int e = 0; e < NE; ++e)
      for (int p = first; p <= last; ++p)
        (void)pair_[e][p].setFriction(scaledFriction(friction, contactScale(e)));  // checked above
    return ParameterError::success();
  }
  // The pulleys' friction anchors (initializeContactHistory of each drive) and their step boundary.
  PulleyBodies<NE, NP>& pulleyBodies() { return pulleys_; }
  // Every pair, for a mesh that carries their histories along the belt (carried_histories.hpp).
  Pair (&pairs())[NE][NP] { return pair_; }
  // A mesh's change of the belt's EA (setAxialStiffness): the drive's record of it.
  void recordAxialStiffness(double EA) {
    belt_.element.EA = EA;
    ++revision_;
  }
  // The mesh length an element's parameters take (the first element's on a graded mesh).
  void recordElementLength(double length) { belt_.element.length = length; }

 private:
  static FrictionParameters scaledFriction(const FrictionParameters& friction, double contactScale) {
    // The bristle stiffness and the velocity penalty scale with the segment's area like k_c (mu_v =
    // 2 zeta sqrt(mu_k m_seg) too, both in proportion).
    FrictionParameters own = friction;
    own.bristleStiffness *= contactScale;
    own.velocityPenalty *= contactScale;
    return own;
  }

  BeltParameters belt_;
  ContactParameters contact_;
  double lumpedNodeMass_ = 1.0;
  PulleyBodies<NE, NP> pulleys_;
  Pair pair_[NE][NP];
  StaticPhase<LayoutVector> phase_;
  PulleyReactions<NP> reactions_;
  bool decideInNewton_ = false;
  std::uint32_t revision_ = 0;
};

}  // namespace beltsim
