// The belt-drive plant: NE ANCF cable elements (a closed belt, or an open cable), up to NP circles
// (pulleys, rolls) with NCS contact segments per element, all in fixed-size storage. A drive may
// use fewer circles than NP (setUp's circleCount): the unused ones keep their unknowns, fixed
// (identity rows), and take part in no contact, so one compiled NP serves every smaller count
// (the same motion; bits may differ from an NP-exact build: host_pulley_count). It is the
// System of the GeneralizedAlpha integrator: it assembles the residual and the Newton matrix into
// the O(N) bordered block-tridiagonal solver and runs the post-Newton step of every contact pair.
//
// Unknowns: node k of the cable has [x, y, x', y'] (k = 0..NE; a closed belt uses nodes 0..NE-1
// and keeps node NE as an unused block); circle p has [x, y, phi] (a pulley on a fixed axis keeps
// x, y fixed). Ordering for the solver: node 0 and the circle unknowns form the border (node 0
// carries the periodic corner of a closed belt, the circles couple to every node in contact);
// nodes 1..NE form the block-tridiagonal chain (belt_newton_matrix.hpp: the ordering, the
// assembly of element and pair blocks, and the two matrix storages of the fixed-cost stepper).
//
// Prescribed unknowns (fixed axis, clamped/pinned cable ends, speed-driven pulleys) are
// eliminated exactly by replacing their Newton row (docs/model.md §7.12): the velocity is set to its
// prescribed value at t_{n+1}, and the row's original value is the reaction (the drive torque).
#pragma once
#include <cstdint>
#include <cstring>

#include <Eigen/Core>

#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/system/belt_newton_matrix.hpp"
#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/stepping/generalized_alpha.hpp"
#include "beltsim/solver/low_rank_update.hpp"
#include "beltsim/system/profiles.hpp"
#include "beltsim/system/tensioner_arm.hpp"

// 1: BeltDrive keeps its last residual's pieces for a second call at the same point (residual()).
#ifndef BELTSIM_RESIDUAL_MEMO
#define BELTSIM_RESIDUAL_MEMO 1
#endif

namespace beltsim {

enum class CircleKind : std::uint8_t {
  kFixedAxis,     // rotation free: inertia, viscous damper, applied torque (profile + command)
  kSpeedDriven,   // angular velocity prescribed (profile, or command); reaction = drive torque
  kTorqueDriven,  // motor inertia included in `inertia`; torque = profile + command
  kFloating,      // planar rigid body on spring-dampers to its rest position; rotation free
  kFixed,         // does not move at all (a fixed guide or a blocked pulley): x, y, phi prescribed
  kTensionerArm,  // centre on a pivoting arm with a torsional spring (tensioner_arm.hpp); rotation free
};

struct CircleParameters {
  CircleKind kind = CircleKind::kFixedAxis;
  Vector2 centre = Vector2::Zero();  // rest position of the centre, m
  double radius = 0.0;               // contact radius r, m (the belt centreline runs at r + h/2)
  int side = 1;                      // +1: wrapped clockwise by the belt (belt runs around it)
  double inertia = 0.0;              // J about the axis, kg m^2 (motor included if torque-driven)
  double rotationalDamping = 0.0;    // d, N m s/rad: LHS + d omega
  RampProfile torque;                // applied physical torque (positive counter-clockwise), N m
  RampProfile speed;                 // prescribed omega for kSpeedDriven, rad/s
  // Fastest change of a commanded speed, rad/s^2, when the pulley runs speed-driven under the
  // plant's commands (BeltDrivePlant): the motor's speed loop reaches a new command at this
  // acceleration instead of at once. 0: at once (a jump of the command is a jump of omega).
  double maxAcceleration = 0.0;
  double mass = 0.0;                 // kg (kFloating, kTensionerArm)
  double supportStiffness = 0.0;     // N/m, each direction (kFloating only)
  double supportDamping = 0.0;       // N s/m, each direction (kFloating only)
  Vector2 force = Vector2::Zero();   // applied force on the centre, N (kFloating only; scaled by
                                     // the load factor in the static solve, like gravity)
  TensionerArm arm;                  // kTensionerArm only (mass: the pulley's, on the arm's tip)
};

enum class CableEnd : std::uint8_t { kFree, kPinned, kClamped };

struct BeltParameters {
  bool closed = true;               // closed belt around the circles, or an open cable
  AncfCable2DParameters<double> element;  // element.length is set by the geometry
  double thickness = 1e-4;          // h_b, m: geometry (centreline at r + h/2) and contact offset
  double width = 0.08;              // b, m: contact stresses
  CableEnd startEnd = CableEnd::kFree;   // open cable only
  CableEnd finishEnd = CableEnd::kFree;  // open cable only
};

// Per-step input of the plant: command values per circle (used where `useCommand` is set: speed
// for kSpeedDriven, torque added to the profile otherwise).
template <int NP>
struct BeltDriveInput {
  double command[NP] = {};
  bool useCommand[NP] = {};
};

template <int NE, int NP, int NCS>
class BeltDrive {
  static constexpr bool kResidualMemo = BELTSIM_RESIDUAL_MEMO != 0;
 public:
  static constexpr int kElements = NE;
  static constexpr int kCircles = NP;
  static constexpr int kNodes = NE + 1;
  static constexpr int kCircleDofs = 3;
  static constexpr int kBorder = 4 + kCircleDofs * NP;
  static constexpr int kSize = 4 * kNodes + kCircleDofs * NP;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using NewtonMatrix = BeltNewtonMatrix<NE, NP>;
  using Solver = typename NewtonMatrix::Solver;
  using Element = AncfCable2D<double>;
  using Pair = ContactPair<NCS>;
  using Matrix4 = Eigen::Matrix<double, 4, 4>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix11 = typename Pair::Matrix11;

  enum class Mode : std::uint8_t { kDynamic, kStatic };

  // ---- set-up ---------------------------------------------------------------------------------
  // Stores the parameters and element length; validates element, circles and contact. The
  // initial coordinates come from setInitialState (or a geometry helper).
  ParameterError setUp(const BeltParameters& belt, double elementLength, const CircleParameters* circles,
                       const ContactParameters& contact) {
    return setUp(belt, elementLength, circles, NP, contact);
  }
  // The same with the first circleCount (1..NP; an open cable 0..NP) circles in use.
  ParameterError setUp(const BeltParameters& belt, double elementLength, const CircleParameters* circles,
                       int circleCount, const ContactParameters& contact) {
    if (circleCount < (belt.closed ? 1 : 0) || circleCount > NP) return ParameterError::invalid("circle.count");
    circleCount_ = circleCount;
    memo_.valid = false;
    compactBorder_ = false;  // a drive set up again starts with the reference's whole border
    belt_ = belt;
    belt_.element.length = elementLength;
    ParameterError e = element_.setUp(belt_.element);
    if (!e.ok()) return e;
    if (!(isFinite(belt.thickness) && belt.thickness >= 0.0)) return ParameterError::invalid("belt.thickness");
    if (!(isFinite(belt.width) && belt.width > 0.0)) return ParameterError::invalid("belt.width");
    for (int p = circleCount; p < NP; ++p) {
      circle_[p] = CircleParameters{};  // unused: fixed, no contact
      circle_[p].kind = CircleKind::kFixed;
      circle_[p].radius = 1.0;
      circle_[p].inertia = 1.0;
    }
    for (int p = 0; p < circleCount; ++p) {
      const CircleParameters& c = circles[p];
      if (!(isFinite(c.radius) && c.radius > 0.0)) return ParameterError::invalid("circle.radius");
      if (!(isFinite(c.inertia) && c.inertia > 0.0)) return ParameterError::invalid("circle.inertia");
      if (!(isFinite(c.rotationalDamping) && c.rotationalDamping >= 0.0))
        return ParameterError::invalid("circle.rotational_damping");
      if (!(isFinite(c.centre(0)) && isFinite(c.centre(1)))) return ParameterError::invalid("circle.centre");
      if (!(isFinite(c.force(0)) && isFinite(c.force(1)))) return ParameterError::invalid("circle.force");
      if (c.kind == CircleKind::kFloating) {
        if (!(isFinite(c.mass) && c.mass > 0.0)) return ParameterError::invalid("circle.mass");
        if (!(isFinite(c.supportStiffness) && c.supportStiffness >= 0.0))
          return ParameterError::invalid("circle.support_stiffness");
        if (!(isFinite(c.supportDamping) && c.supportDamping >= 0.0))
          return ParameterError::invalid("circle.support_damping");
      }
      if (c.kind == CircleKind::kTensionerArm) {
        const TensionerArm& arm = c.arm;
        if (!(isFinite(c.mass) && c.mass >= 0.0)) return ParameterError::invalid("circle.mass");
        if (!(isFinite(arm.pivot(0)) && isFinite(arm.pivot(1)))) return ParameterError::invalid("arm.pivot");
        if (!((c.centre - arm.pivot).norm() > 0.0)) return ParameterError::invalid("arm.length");
        if (!(isFinite(arm.inertia) && arm.inertia >= 0.0)) return ParameterError::invalid("arm.inertia");
        if (!(isFinite(arm.stiffness) && arm.stiffness >= 0.0)) return ParameterError::invalid("arm.stiffness");
        if (!isFinite(arm.preloadAngle)) return ParameterError::invalid("arm.preload_angle");
        if (!(isFinite(arm.damping) && arm.damping >= 0.0)) return ParameterError::invalid("arm.damping");
        for (double tf : arm.frictionTorque)
          if (!(isFinite(tf) && tf >= 0.0)) return ParameterError::invalid("arm.friction_torque");
        if (!(isFinite(arm.frictionStiffness) && arm.frictionStiffness > 0.0))
          return ParameterError::invalid("arm.friction_stiffness");
        if (!(isFinite(arm.frictionDampingRatio) && arm.frictionDampingRatio >= 0.0))
          return ParameterError::invalid("arm.friction_damping_ratio");
        if (!(isFinite(arm.radialStiffness) && arm.radialStiffness > 0.0))
          return ParameterError::invalid("arm.radial_stiffness");
        if (!(isFinite(arm.radialDampingRatio) && arm.radialDampingRatio >= 0.0))
          return ParameterError::invalid("arm.radial_damping_ratio");
        armGeometry_[p] = armGeometry(arm, c.centre, c.mass);
        armAnchor_[p] = armAnchorStart_[p] = 0.0;
        if (!(armGeometry_[p].equivalentMass > 0.0)) return ParameterError::invalid("arm.inertia");
      }
      circle_[p] = c;
      ContactParameters cp = contact;
      cp.radius = c.radius;
      cp.offset = -0.5 * belt.thickness * c.side;  // the belt's surface on the circle's side
      cp.beltWidth = belt.width;
      if (cp.compensatedTension > 0.0)  // per circle: the penetration depends on its radius
        cp.radiusAllowance = penetrationUnderTension(cp, cp.compensatedTension, elementLength / contact.segmentCount);
      cp.elementSag = cp.gapMeasure == SegmentGapMeasure::kArc ? cubicArcSag(elementLength, contactSurfaceRadius(cp)) : 0.0;
      for (int k = 0; k < NE; ++k) {
        e = pair_[k][p].setUp(cp);
        if (!e.ok()) return e;
      }
    }
    contact_ = contact;
    // A drive set up again (a plant restarted, an FMU instance reset) starts without commands.
    input_ = previousInput_ = BeltDriveInput<NP>{};
    shapeTable_.build(belt_.element.length, contact.segmentCount);
    const Matrix8& m = element_.massMatrix();
    massElement_ = m;
    lumpedNodeMass_ = m(0, 0) + m(0, 4);  // row sum of the position part: rho A L / 2
    return ParameterError::success();
  }

  const BeltParameters& belt() const { return belt_; }
  const Element& element() const { return element_; }
  // Contact parameters as given to setUp (per-circle radius and offset are in each pair's).
  const ContactParameters& contact() const { return contact_; }
  const CircleParameters& circle(int p) const { return circle_[p]; }
  // Circles in use (the first circleCount() of the NP compiled ones).
  int circleCount() const { return circleCount_; }
  Pair& pair(int elementIndex, int circleIndex) { return pair_[elementIndex][circleIndex]; }
  const Pair& pair(int elementIndex, int circleIndex) const { return pair_[elementIndex][circleIndex]; }

  // ---- state layout -----------------------------------------------------------------------------
  static constexpr int nodeDof(int node, int local) { return 4 * node + local; }
  static constexpr int circleDof(int p, int local) { return 4 * kNodes + kCircleDofs * p + local; }

  Eigen::Matrix<double, 8, 1> gatherElement(const Vector& x, int e) const {
    Eigen::Matrix<double, 8, 1> out;
    const double* a = x.data() + 4 * e;
    const double* b = x.data() + 4 * nextNode(e);
    for (int i = 0; i < 4; ++i) {
      out(i) = a[i];
      out(4 + i) = b[i];
    }
    return out;
  }
  int nextNode(int e) const { return belt_.closed && e == NE - 1 ? 0 : e + 1; }

  CircleState circleState(const Vector& q, const Vector& v, int p) const {
    CircleState c;
    c.centre = Vector2(q(circleDof(p, 0)), q(circleDof(p, 1)));
    c.angle = q(circleDof(p, 2));
    c.velocity = Vector2(v(circleDof(p, 0)), v(circleDof(p, 1)));
    c.angularVelocity = v(circleDof(p, 2));
    return c;
  }

  // ---- commands -----------------------------------------------------------------------------------
  // Called once per step, before it: the previous step's input is kept, so that a speed command
  // that changes from step to step gives the drive torque its J (omega_k - omega_k-1) / h.
  void setInput(const BeltDriveInput<NP>& input) {
    previousInput_ = input_;
    input_ = input;
  }
  const BeltDriveInput<NP>& input() const { return input_; }

  // Prescribed angular velocity of a speed-driven circle at time t.
  double prescribedSpeed(int p, double t) const {
    return input_.useCommand[p] ? input_.command[p] : circle_[p].speed.at(t);
  }
  // Prescribed angular velocity at the start of the step that ends at t: the previous step's
  // command when commands drive the circle, the profile at t - h otherwise.
  double speedAtStepStart(int p, double t, double h) const {
    if (input_.useCommand[p] && previousInput_.useCommand[p]) return previousInput_.command[p];
    return circle_[p].speed.at(t - h);
  }
  // Applied physical torque on circle p at time t (positive counter-clockwise).
  double appliedTorque(int p, double t) const {
    double torque = circle_[p].torque.at(t);
    if (input_.useCommand[p] && circle_[p].kind != CircleKind::kSpeedDriven) torque += input_.command[p];
    return torque;
  }

  // ---- static-phase controls (docs/model.md §8.3) ------------------------------------------------------------
  void setMode(Mode mode) { mode_ = mode; }
  Mode mode() const { return mode_; }
  // Static solve: load factor on gravity, stabilizer s (LHS + s M (q - qPrevious)), the locked
  // positions (used for circle rotations and node 0's x), and the previous load step's q.
  void setStaticLoad(double loadFactor, double stabilizer, const Vector& previous, const Vector& locks) {
    loadFactor_ = loadFactor;
    stabilizer_ = stabilizer;
    staticPrevious_ = previous;
    staticLocks_ = locks;
  }
  // Viscous damper of circle p (N m s/rad), used from the next residual on.
  void setRotationalDamping(int p, double damping) { circle_[p].rotationalDamping = damping; }

  // Friction parameters of every pair (static phase: mu = 0, mu_k tiny; dynamic: nominal). Invalid
  // parameters are reported and change nothing: checked on the first pair before any is touched
  // (the pairs differ only in their circle's radius, which the friction does not meet).
  ParameterError setFriction(const FrictionParameters& friction) {
    if (circleCount_ > 0) {
      ContactParameters check = pair_[0][0].parameters();
      check.friction = friction;
      const ParameterError e = validateContactParameters<NCS>(check);
      if (!e.ok()) return e;
    }
    memo_.valid = false;
    for (int k = 0; k < NE; ++k)
      for (int p = 0; p < circleCount_; ++p) {
        Pair& pr = pair_[k][p];
        ContactParameters cp = pr.parameters();
        cp.friction = friction;
        SegmentHistory current[NCS], start[NCS];
        for (int i = 0; i < NCS; ++i) {
          current[i] = pr.history(i);
          start[i] = pr.startOfStepHistory(i);
        }
        const bool anchorless = pr.anchorlessRenewing();
        const ParameterError e = pr.setUp(cp);  // resets the history and the stepping's view: restored below
        if (!e.ok()) return e;  // not reached: checked above
        pr.setAnchorlessRenewing(anchorless);
        for (int i = 0; i < NCS; ++i) pr.setHistory(i, start[i]);
        pr.beginStep();
        for (int i = 0; i < NCS; ++i) pr.setHistory(i, current[i]);
      }
    return ParameterError::success();
  }

  // ---- System interface (GeneralizedAlpha) ------------------------------------------------------
  // false (the reference, docs/model.md §4.6): the residual keeps every segment's contact flag and stick/
  // slip state as the last post-Newton step left them. true (the fixed-cost stepping): the residual
  // decides them at each evaluation (ContactPair::evaluateDecided) for the pairs that can touch
  // their circle within the step: a start-of-step gap within kDecisionMargin. The margin is far
  // above what a segment moves towards a pulley in one step (about 0.15 mm for a belt entering
  // a 0.1 m pulley at 1.2 m/s with 1 ms steps); a pair outside it is picked up in the next step.
  static constexpr double kDecisionMargin = 1e-3;  // m
  void setDecideInNewton(bool decide) { decideInNewton_ = decide; }
  // Kept matrix (fixed-cost stepping): true, only switches that stiffen it (contact made, slip ->
  // stick) are applied as low-rank columns; a softening switch leaves the stiffer state in the
  // matrix until the refresh (safe, slower convergence there); a new contact enters with the
  // stick tangent.
  void setStiffenOnly(bool stiffen) { stiffenOnly_ = stiffen; }
  // The reference stepping's Newton matrix (factorize): false (the paper's validation), the whole
  // border is eliminated; true (IntegratorSettings::compactBorder, the PC configuration), the
  // prescribed border unknowns are left out of the elimination as in the kept matrix
  // (bordered_block_tridiagonal.hpp, compact border): the same matrix in fewer operations.
  // A change takes effect at the next build, which is then a whole one (an update that keeps part
  // of the chain's elimination needs the border that elimination used).
  void setCompactBorder(bool compact) {
    if (compact != compactBorder_) factorized_ = false;
    compactBorder_ = compact;
  }
  // The fixed-cost stepping: a segment renewing its anchor under StickMemory::kWholeElement pulls
  // with the velocity penalty alone in every Newton-phase force (ContactPair::decidedView), as its
  // decided forces and the kept matrix take it.
  void setAnchorlessRenewing(bool anchorless) {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pair_[e][p].setAnchorlessRenewing(anchorless);
  }
  int refactoredBlocks() const { return refactoredBlocks_; }
  // Border unknowns the active factorization eliminated (kBorder, or fewer with the kept
  // matrix's compact border: prescribedBorderMask).
  int eliminatedBorderWidth() const { return matrix_.active().eliminatedBorderWidth(); }
  // Chain blocks whose elimination the last reference-stepping build kept (0: eliminated whole).
  int keptChainBlocks() const { return keptChainBlocks_; }
  // Starts the aged rebuild afresh (the next rebuild evaluates every block): the same inputs give
  // the same bits after any reset.
  void setBlockAge(int steps) {
    blockAge_ = steps < 1 ? 1 : steps;
    agedBlocksValid_ = false;
    ageSlice_ = 0;
    renewalCursor_ = 0;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pairAge_[e][p] = 0;
  }
  bool decidesInNewton() const { return decideInNewton_; }

  // The residual at a point. In the reference stepping (dynamic, states held) it keeps what it
  // computed, per element and per contact pair, with the point (ResidualMemo below): a second
  // call at the same bits of q, v and a takes the element forces and the forces of every pair
  // whose Newton-phase history is unchanged from there and sums everything in the same order,
  // so its result is the full evaluation's to the bit. That call is the first residual of every
  // post-Newton pass after the first (the pass starts where the last one ended; only the states
  // the post-Newton step changed differ).
  Status residual(const IterationPoint<Vector>& point, Vector& r) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    r.setZero();
    const bool isStatic = mode_ == Mode::kStatic;
    const double gravityFactor = isStatic ? loadFactor_ : 1.0;
    const bool record = kResidualMemo && !isStatic && !decideInNewton_;
    const bool reuse = record && memo_.valid && memo_.samePoint(q, v, a);
    if (record && !reuse) {
      memo_.valid = false;
      memo_.q = q.template head<kMemoSize>();
      memo_.v = v.template head<kMemoSize>();
      memo_.a = a.template head<kMemoSize>();
      for (int e = 0; e < kMemoElements; ++e)
        for (int p = 0; p < kMemoCircles; ++p) memo_.evaluated[e][p] = false;
    }
    for (int e = 0; e < NE; ++e) {
      if (reuse) {
        scatterElement(memo_.element[e], e, r);
        continue;
      }
      const Vector8 qe = gatherElement(q, e);
      const Vector8 ve = gatherElement(v, e);
      Vector8 re;
      const Status s = element_.internalForce(qe, ve, re);
      if (s != Status::kOk) return s;
      if (isStatic) {
        re.noalias() += stabilizer_ * (massElement_ * (qe - gatherElement(staticPrevious_, e)));
      } else {
        addMassTimes(gatherElement(a, e), re);
      }
      re -= gravityFactor * element_.gravityForce();
      if (record) memo_.element[e] = re;
      scatterElement(re, e, r);
    }
    for (int p = 0; p < NP; ++p) {
      const CircleState cs = circleState(q, v, p);
      beltTorque_[p] = 0.0;
      hubForce_[p] = Vector2::Zero();
      for (int e = 0; e < NE && p < circleCount_; ++e) {
        Pair& pair = pair_[e][p];
        PairForces f;
        Status s = Status::kOk;
        if (decideInNewton_) {
          if (!pair.candidate(kDecisionMargin)) continue;
          s = pair.evaluateDecided(gatherElement(q, e), gatherElement(v, e), shapeTable(), cs, f);
        } else {
          if (!pair.anyFlagged()) continue;
          if (reuse && memo_.evaluated[e][p] && pair.sameNewtonHistory(memo_.history[e][p])) {
            f = memo_.pair[e][p];
          } else {
            s = pair.evaluateNewton(gatherElement(q, e), gatherElement(v, e), shapeTable(), cs, f,
                                    record ? &memo_.kinematics[e][p] : nullptr);
            if (record && s == Status::kOk) {
              memo_.pair[e][p] = f;
              pair.copyHistory(memo_.history[e][p]);
            }
          }
          if (record) memo_.evaluated[e][p] = s == Status::kOk;
        }
        if (s != Status::kOk) return s;
        if (f.activeSegments == 0) continue;
        scatterElement(f.element, e, r);
        r(circleDof(p, 0)) += f.circleForce(0);
        r(circleDof(p, 1)) += f.circleForce(1);
        r(circleDof(p, 2)) += f.circleTorque;
        beltTorque_[p] -= f.circleTorque;  // LHS -> physical torque of the belt on the circle
        hubForce_[p] -= f.circleForce;
      }
      circleResidual(p, q, v, a, point.time, r);
    }
    applyPrescribedRows(point, r);
    if (record) memo_.valid = true;
    return Status::kOk;
  }

  // Builds and factors the Newton matrix massFactor M + stiffnessFactor K + dampingFactor D.
  // kFull evaluates every element and contact-pair block at the current point and keeps them;
  // kChangedContacts re-evaluates only the pairs whose flags or stick/slip states changed since
  // their last evaluation and keeps every other block as it was built (elements at the last
  // kFull): an approximate Newton matrix, which only changes the convergence rate.
  // `built` tells whether anything was re-evaluated (false: the last factorization still holds).
  Status factorize(const IterationPoint<Vector>& point, MatrixUpdate update, bool& built) {
    built = false;
    const IntegratorCoefficients& c = *point.coefficients;
    const bool isStatic = mode_ == Mode::kStatic;
    // Static: d/dq of [s M (q - q_prev) + Q(q, 0)] -> mass factor s, stiffness 1, damping 0.
    const double factors[3] = {isStatic ? stabilizer_ : c.massFactor, isStatic ? 1.0 : c.stiffnessFactor,
                               isStatic ? 0.0 : c.dampingFactor};
    const bool full = update == MatrixUpdate::kFull || !blocksValid_ || isStatic || blockFactors_[0] != factors[0] ||
                      blockFactors_[1] != factors[1] || blockFactors_[2] != factors[2];
    // The factorization of the last build stays valid if no contact pair changed since.
    if (!full && factorized_ && !anyPairChangedSinceBuild()) return Status::kOk;
    // An update of the last factorization's blocks where pairs changed: the chain blocks before
    // the first one a changed pair touches keep their entries and their elimination.
    const bool keepsChain = !full && factorized_;
    built = true;
    blocksValid_ = false;
    factorized_ = false;
    agedBlocksValid_ = false;  // the fixed-cost refresh's kept blocks are overwritten below
    Status s = full ? buildElementBlocks(point, factors) : Status::kOk;
    int firstChanged = 0;
    if (s == Status::kOk) s = buildPairBlocks(point, factors, full, firstChanged);
    if (s != Status::kOk) return s;
    for (int k = 0; k < 3; ++k) blockFactors_[k] = factors[k];
    blocksValid_ = !isStatic;
    s = assembleAndFactorize(point, factors, keepsChain ? firstChanged : 0);
    factorized_ = s == Status::kOk && !isStatic;
    return s;
  }


 private:
  // The pieces of factorize; `factors`: mass, stiffness and damping factors of the Newton matrix.
  bool anyPairChangedSinceBuild() const {
    for (int p = 0; p < circleCount_; ++p)
      for (int e = 0; e < NE; ++e)
        if (pair_[e][p].jacobianSignature() != pairSignature_[e][p]) return true;
    return false;
  }

  Status buildElementBlocks(const IterationPoint<Vector>& point, const double (&factors)[3]) {
    for (int e = 0; e < NE; ++e) {
      Vector8 re;
      Matrix8& m = elementBlock_[e];
      const Status s = element_.internalForceAndCombinedJacobian(gatherElement(*point.q, e), gatherElement(*point.v, e),
                                                                 factors[1], factors[2], re, m);
      if (s != Status::kOk) return s;
      addMassMatrix(factors[0], m);
    }
    return Status::kOk;
  }

  // The blocks of the pairs whose Jacobian signature changed since their last build (all: `full`).
  // firstChanged: the first chain block whose entries a rebuilt pair touches (NE: none).
  Status buildPairBlocks(const IterationPoint<Vector>& point, const double (&factors)[3], bool full,
                         int& firstChanged) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    firstChanged = NE;
    for (int p = 0; p < circleCount_; ++p) {
      const CircleState cs = circleState(q, v, p);
      for (int e = 0; e < NE; ++e) {
        const std::uint64_t signature = pair_[e][p].jacobianSignature();
        if (!full && signature == pairSignature_[e][p]) continue;
        pairSignature_[e][p] = signature;
        // Its block enters, leaves or changes (the signature holds the flags anyFlagged reads).
        if (NewtonMatrix::firstChainBlock(e) < firstChanged) firstChanged = NewtonMatrix::firstChainBlock(e);
        if (!pair_[e][p].anyFlagged()) continue;  // its block is never read
        Matrix11& m = pairBlock_[e][p];
        if (segmentNormalPath(pair_[e][p], shapeTable())) {
          const Status s = contactPairNewtonMatrix(pair_[e][p], gatherElement(q, e), gatherElement(v, e), shapeTable(),
                                                   cs, factors[1], factors[2], m);
          if (s != Status::kOk) return s;
          continue;
        }
        const Status s = contactPairJacobian(pair_[e][p], gatherElement(q, e), gatherElement(v, e), shapeTable(), cs,
                                             contactStiffness_, contactDamping_);
        if (s != Status::kOk) return s;
        for (int j = 0; j < 11; ++j)
          for (int i = 0; i < 11; ++i)
            m(i, j) = factors[1] * contactStiffness_(i, j) + factors[2] * contactDamping_(i, j);
      }
    }
    return Status::kOk;
  }

  // The Newton matrix from the kept blocks, the circles and the prescribed rows, factorized in place.
  // keptChainBlocks > 0: the storage holds the factorization of a matrix whose chain blocks before
  // keptChainBlocks had the entries assembled now (the same blocks added in the same order); their
  // elimination is kept and the rest redone from there, the same bits as a whole factorization
  // (BorderedBlockTridiagonal::refactorizeFrom with the complete corner). The corner is always
  // assembled anew: the circles' entries and the pairs' coupling to the border may change.
  // The kept chain blocks keep their entries too: only the rest and the corner are assembled.
  Status assembleAndFactorize(const IterationPoint<Vector>& point, const double (&factors)[3], int keptChainBlocks = 0) {
    matrix_.assembleInPlace();
    heldBlocksActive_ = false;
    updates_.clear();
    matrix_.beginAssembly(keptChainBlocks);
    // The reference eliminates the whole border unless the configuration asks for the compact
    // one (setCompactBorder: the prescribed border unknowns solved apart, fewer operations, the
    // same matrix; results agree to rounding, not bit for bit). The static equilibrium always
    // eliminates the whole border, so a plant started again starts from the same bits.
    const bool compact = compactBorder_ && mode_ != Mode::kStatic;
    matrix_.target().setInactiveBorder(compact ? prescribedBorderMask() : 0u);
    for (int e = 0; e < NE; ++e) matrix_.addElementMatrix(e, nextNode(e), elementBlock_[e]);
    for (int p = 0; p < NP; ++p) {
      for (int e = 0; e < NE && p < circleCount_; ++e)
        if (pair_[e][p].anyFlagged()) matrix_.addPairMatrix(e, nextNode(e), p, pairBlock_[e][p]);
      circleMatrix(p, *point.q, *point.v, factors[0], factors[1], factors[2]);
    }
    applyPrescribedMatrixRows();
    matrix_.finishAssembly();
    scale_ = factors[1];
    keptChainBlocks_ = keptChainBlocks;
    if (keptChainBlocks > 0) return matrix_.target().refactorizeFrom(keptChainBlocks, true);
    return matrix_.target().factorize();
  }

 public:
  Status factorize(const IterationPoint<Vector>& point) {
    bool built = false;
    return factorize(point, MatrixUpdate::kFull, built);
  }

  // Accelerations consistent with a state that is not an equilibrium (a start from rest in the
  // drawn configuration): M a = Q_ext(t) - Q(q, v), the contact forces included, with a = 0 on
  // every prescribed unknown. `point.a` is ignored; `point.coefficients` only serves the residual's
  // prescribed rows, which are then replaced by a = 0. Factorizes the mass matrix alone (the
  // elements' M, circle inertias and masses) in place of the Newton matrix: the next factorize
  // is a full build.
  Status consistentAccelerations(const IterationPoint<Vector>& point, Vector& a) {
    const Vector zero = Vector::Zero();
    IterationPoint<Vector> atZero = point;
    atZero.a = &zero;
    Vector r;
    Status s = residual(atZero, r);
    if (s != Status::kOk) return s;
    for (int dof = 0; dof < kSize; ++dof)
      if (prescribedKind(dof) != Prescribed::kNo) r(dof) = 0.0;
    blocksValid_ = false;
    factorized_ = false;
    matrix_.assembleInPlace();
    heldBlocksActive_ = false;
    updates_.clear();
    matrix_.beginAssembly();
    matrix_.target().setInactiveBorder(0);
    for (int e = 0; e < NE; ++e) {
      Matrix8 m = Matrix8::Zero();
      addMassMatrix(1.0, m);
      matrix_.addElementMatrix(e, nextNode(e), m);
    }
    for (int p = 0; p < NP; ++p) circleMatrix(p, *point.q, *point.v, 1.0, 0.0, 0.0);
    applyPrescribedMatrixRows();
    matrix_.finishAssembly();
    s = matrix_.target().factorize();
    if (s != Status::kOk) return s;
    scale_ = 1.0;
    s = solve(r, a);
    a = -a;
    return s;
  }

  // ---- kept Newton matrix (fixed-cost stepper, fixed_cost_stepper.hpp) ---------------------------
  // The stepper keeps one factorized Newton matrix for many steps. A refresh rebuilds it in the
  // second storage, a slice of elements per step (beginRefresh, refreshSlice, finishRefresh: the
  // last one makes it active); between refreshes every contact or stick/slip switch of a segment
  // is applied as a rank-one or rank-two correction (updateSwitches), at most a given number of
  // columns per step, the rest in the following steps, or by a partial re-factorization
  // (refactorSwitchedPairs). The bodies of these members are in kept_newton_matrix.hpp.
  static constexpr int kMaxLowRankColumns = 16;

  // Starts a refresh: the second storage is cleared and becomes the assembly target.
  void beginRefresh();

  // Assembles elements [first, last) and their contact pairs at `point` into the matrix being
  // refreshed and eliminates its chain blocks that are complete (node k + 1 is complete when the
  // elements k and k + 1 are in). Slices must come in order, starting at element 0. With an
  // aged refresh (setBlockAge > 1, one slice per step) only some blocks are evaluated again
  // (selectPairRenewals; pairBudget: the pair evaluations the step still has).
  Status refreshSlice(const IterationPoint<Vector>& point, int first, int last, int pairBudget = 0);
  void selectPairRenewals(int pairBudget, bool (&renew)[NE][NP]);

  // Adds the circles, the prescribed rows of the corner, factorizes the corner and makes the
  // refreshed matrix the active one; the low-rank corrections start again from it.
  Status finishRefresh(const IterationPoint<Vector>& point);

  // Applies the contact and stick/slip switches since the active matrix was built (or last
  // updated), as exact changes of the switched segments' Newton blocks at `point`, projected onto
  // the segment's normal and tangential load directions (rank one for a stick/slip switch, two
  // for a contact switch): at most maxColumns columns, switches that stiffen the matrix first
  // (contact made, slip -> stick), since a matrix softer than the true one lets the iteration
  // overshoot. `pending` counts the switched segments left for later steps. A matrix that only
  // stiffens (setStiffenOnly) has no softening pass: its pairs are scanned once.
  Status updateSwitches(const IterationPoint<Vector>& point, int maxColumns, int& columns, int& pending);

  // Partial re-factorization of the kept matrix, for a step with many stiffening switches (a
  // whole slip arc that starts sticking takes 16 low-rank columns, about three times the cost of
  // evaluating its 4 pairs again and eliminating from there): the contact pairs with a
  // stiffening switch since the matrix was built (at most maxPairs, in element order; the others
  // stay for the columns) are evaluated again at `point`, each segment in the stiffer of its
  // state in the matrix and its current one; the change of each pair's block is added to the
  // active matrix's entries, and its factorization is redone from the first chain block they
  // touch. Nothing happens when the
  // switches would need fewer than minColumns columns, while low-rank columns are applied (they
  // refer to the old factorization) or when the held pair blocks are not the active matrix's (a
  // refresh spread over several steps). `pairs`: pairs evaluated again; `left`: stiffening
  // switches (segments) the kept matrix still lacks afterwards, or -1 if the pairs were not
  // scanned (updateSwitches must look).
  Status refactorSwitchedPairs(const IterationPoint<Vector>& point, int maxPairs, int minColumns, int& pairs,
                               int& left);

  int lowRankColumns() const { return updates_.count(); }
  // The active Newton matrix (assembled entries and factorization), in the solver's order.
  const Solver& activeMatrix() const { return matrix_.active(); }
  static int solverOrder(int dof) { return NewtonMatrix::solverIndex(dof); }

  Status solve(const Vector& r, Vector& delta) const {
    Vector rhs;
    NewtonMatrix::toSolverOrder(r, rhs);
    rhs *= scale_;
    Vector x;
    const Status s = matrix_.active().solve(rhs, x);
    if (s == Status::kOk) updates_.correct(x);
    NewtonMatrix::fromSolverOrder(x, delta);
    return s;
  }

  // Back to the start-of-step history (a step that faulted after its residuals decided states).
  void rejectStep() {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < circleCount_; ++p) pair_[e][p].rejectStep();
    for (int p = 0; p < circleCount_; ++p) armAnchor_[p] = armAnchorStart_[p];
  }

  void beginStep() {
    memo_.valid = false;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < circleCount_; ++p) pair_[e][p].beginStep();
    for (int p = 0; p < circleCount_; ++p) armAnchorStart_[p] = armAnchor_[p];
  }

  // e_PNS: sum over the segments of a pair, maximum over the pairs (docs/model.md §4.7 notes).
  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    Status worst = Status::kOk;
    // Tensioner arms: the friction anchor from the start-of-step anchor (as the belt's segments);
    // the change, as a force at the pulley (N), counts in the PNS error.
    for (int p = 0; p < circleCount_; ++p) {
      const CircleParameters& c = circle_[p];
      if (c.kind != CircleKind::kTensionerArm || !hasArmFriction(c.arm) || mode_ != Mode::kDynamic) continue;
      const double anchor = updateArmAnchor(c.arm, armAnchorStart_[p], armState(p, *point.q, *point.v).angle);
      const double change = std::fabs(anchor - armAnchor_[p]) * c.arm.frictionStiffness / armGeometry_[p].length;
      if (change > error) error = change;
      armAnchor_[p] = anchor;
    }
    // At the point of the last residual (the Newton solve's last iterate) the pairs it evaluated
    // hand their segment points and kinematics over (ResidualMemo).
    const bool atMemo = kResidualMemo && mode_ == Mode::kDynamic && !decideInNewton_ && memo_.valid &&
                        memo_.samePoint(*point.q, *point.v, *point.a);
    for (int p = 0; p < circleCount_; ++p) {
      const CircleState cs = circleState(*point.q, *point.v, p);
      for (int e = 0; e < NE; ++e) {
        double pairError = 0.0;
        const PairKinematics<NCS>* known = atMemo && memo_.evaluated[e][p] ? &memo_.kinematics[e][p] : nullptr;
        const Status s = pair_[e][p].postNewtonStep(gatherElement(*point.q, e), gatherElement(*point.v, e),
                                                    shapeTable(), cs, pairError, known);
        if (s == Status::kNonFiniteValue) return s;
        if (s != Status::kOk) worst = s;
        if (pairError > error) error = pairError;
      }
    }
    return worst;
  }

  // Static solve of a closed belt: the force (N, physical, along x) that the lock of node 0's x
  // coordinate applies to the belt at the last static residual. At a converged static state it is
  // what the locked coordinate carries; the belt's free body around pulley 1 (node 0 is where the
  // belt leaves it) includes it. It vanishes only if the contact forces alone balance the belt
  // along x; with the bristles' tiny static stiffness they do not quite.
  double staticLockReaction() const { return staticLockReaction_; }

  // Reaction of a prescribed circle rotation at the last residual: the torque the drive applies
  // (physical, positive counter-clockwise), N m.
  double driveTorque(int p) const { return reaction_[p]; }
  // Torque of the belt's contact forces on circle p at the last residual (physical, positive
  // counter-clockwise), N m. At steady state on the load pulley: -(applied load + damper torque).
  double beltTorque(int p) const { return beltTorque_[p]; }
  // Force of the belt's contact forces on circle p at the last residual (physical), N: what its
  // axle (or, for a floating circle, its support) carries.
  Vector2 hubForce(int p) const { return hubForce_[p]; }
  // Tensioner arm of circle p (kTensionerArm) at coordinates q, velocities v: its angle from the
  // drawn position (rad, counter-clockwise), spring torque and total torque about the pivot.
  ArmForce armState(int p, const Vector& q, const Vector& v) const {
    const CircleState cs = circleState(q, v, p);
    return armForce(circle_[p].arm, armGeometry_[p], cs.centre, cs.velocity, mode_ == Mode::kDynamic, armAnchor_[p]);
  }
  const ArmGeometry& armGeometryOf(int p) const { return armGeometry_[p]; }

  // Initialises every pair's history from the current geometry (docs/model.md §8.4): contact (g <= 0):
  // stick, anchored at x_cur; otherwise undefined. Also the start-of-step copy.
  void initializeContactHistory(const Vector& q, const Vector& v) {
    for (int p = 0; p < circleCount_; ++p) {
      // Tensioner friction anchored where the arm is: no friction torque at the start.
      if (circle_[p].kind == CircleKind::kTensionerArm) armAnchor_[p] = armAnchorStart_[p] = armState(p, q, v).angle;
    }
    for (int p = 0; p < circleCount_; ++p) {
      const CircleState cs = circleState(q, v, p);
      for (int e = 0; e < NE; ++e) {
        Pair& pr = pair_[e][p];
        SegmentPoints<NCS> pts;
        if (computeSegmentPoints(gatherElement(q, e), gatherElement(v, e), belt_.element.length,
                                 pr.parameters().segmentCount, pr.parameters().offset, pts) != Status::kOk)
          continue;
        for (int i = 0; i < NCS; ++i) {
          if (i >= pr.parameters().segmentCount) break;
          const SegmentKinematics kin = segmentKinematics(pr.parameters(), pts, i, belt_.element.length, cs);
          SegmentHistory h;
          h.gap = kin.geometry.gap;
          if (h.gap <= 0.0) {
            h.state = StickSlip::kStick;
            h.stickingPosition = kin.stickingCoordinate;
          }
          pr.setHistory(i, h);
        }
        pr.beginStep();
      }
    }
  }

 private:
  using Vector8 = Eigen::Matrix<double, 8, 1>;

  // The shape-function table of the segment points (built in setUp; rebuilt here if the element
  // length or the contact's segment count was changed since).
  const SegmentShapeTable<NCS>& shapeTable() {
    if (!shapeTable_.matches(belt_.element.length, contact_.segmentCount))
      shapeTable_.build(belt_.element.length, contact_.segmentCount);
    return shapeTable_;
  }

  // out += M x for the element mass matrix, whose only nonzeros are M(2i + c, 2j + c) (the 4 x 4
  // Hermite mass times the 2 x 2 identity): 32 products instead of a general 8 x 8 product.
  void addMassTimes(const Vector8& x, Vector8& out) const {
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 2; ++c) {
        double sum = massElement_(2 * i + c, c) * x(c);
        for (int j = 1; j < 4; ++j) sum += massElement_(2 * i + c, 2 * j + c) * x(2 * j + c);
        out(2 * i + c) += sum;
      }
  }

  // Segment i's nibble of a Jacobian signature (contact flag and stick/slip state).
  static unsigned nibbleOf(std::uint64_t signature, int i) { return static_cast<unsigned>((signature >> (4 * i)) & 15u); }

  // Columns the stiffening switches from signature `before` to `after` need (updateSwitches);
  // `switched`: how many segments they are.
  static int stiffeningColumns(std::uint64_t before, std::uint64_t after, int& switched);

  // Rows of prescribed border unknowns in the corner of the matrix being assembled: the scaled
  // identity (the chain blocks' share: applyPrescribedRowsToBlock).
  void applyPrescribedCornerRows() {
    for (int b = 0; b < kBorder; ++b) {
      const int dof = borderDof(b);
      if (prescribedKind(dof) == Prescribed::kNo) continue;
      matrix_.target().corner().row(b).setZero();
      matrix_.target().corner()(b, b) = rowScale(dof);
    }
  }

  // Stiffness order of a segment's Newton-block state (nibble of jacobianSignature: 8 = flagged,
  // low bits the StickSlip value): not in contact < slipping < no anchor yet (velocity penalty
  // only) < sticking (bristle spring).
  static int switchStiffness(unsigned nibble) {
    if ((nibble & 8u) == 0) return 0;
    const StickSlip state = nibbleState(nibble);
    if (isSlipping(state)) return 1;
    return state == StickSlip::kStick ? 3 : 2;
  }

  static StickSlip nibbleState(unsigned nibble) {
    return static_cast<StickSlip>(static_cast<std::int8_t>(static_cast<std::int8_t>((nibble & 7u) << 5) >> 5));
  }

  // What the kept matrix of a pair depends on: its Jacobian signature, where a new contact
  // (state undefined) counts as sticking if the matrix only stiffens (setStiffenOnly).
  std::uint64_t keptSignature(const Pair& pair) const;

  // The pair (e, p) as the kept matrix takes it (keptSignature; anchors as they are).
  Pair keptPair(int e, int p) const;

  // Segment i of pair (e, p) in the state `nibble` (contact flag and stick/slip; the current
  // anchor kept).
  SegmentHistory nibbleHistory(int e, int p, int i, unsigned nibble) const;

  // One switch of segment i of pair (e, p) from state `before` to `after` (nibbles): the change
  // of the pair's Newton block D (11 x 11), D ~ U V^T with U the segment's generalized load
  // directions (tangential; normal too for a contact switch) and V^T = (U^T U)^-1 U^T D, the
  // part of D that acts along them, which is all of it up to terms proportional to the force
  // jump (the direction vectors' own derivatives). Prescribed rows are left out.
  Status applySwitch(const IterationPoint<Vector>& point, int e, int p, int i, unsigned before, unsigned after);

  // Generalized LHS of a unit force on segment i along its normal (column 0) and its tangent
  // (column 1) over the pair's 11 coordinates, as evaluateNewton distributes a segment force.
  Status segmentLoadDirections(const Pair& pair, const Vector8& qe, const Vector8& ve, const CircleState& cs, int i,
                               Eigen::Matrix<double, 11, 2>& u);

  // The prescribed rows in chain block k of the matrix being refreshed: rows of the block's own
  // prescribed unknowns become the scaled identity, and prescribed border rows lose their
  // entries in block k's columns (before the block is eliminated, as applyPrescribedMatrixRows
  // does for the whole matrix).
  void applyPrescribedRowsToBlock(int k) {
    for (int l = 0; l < 4; ++l) {
      const int dof = nodeDof(k + 1, l);
      if (prescribedKind(dof) == Prescribed::kNo) continue;
      matrix_.target().diagonal(k).row(l).setZero();
      matrix_.target().lower(k).row(l).setZero();
      matrix_.target().upper(k).row(l).setZero();
      matrix_.target().columnBorder(k).row(l).setZero();
      matrix_.target().diagonal(k)(l, l) = rowScale(dof);
    }
    for (int b = 0; b < kBorder; ++b)
      if (prescribedKind(borderDof(b)) != Prescribed::kNo) matrix_.target().rowBorder(k).row(b).setZero();
  }

  // The system coordinate of border unknown b of the solver: node 0, then the circles.
  static constexpr int borderDof(int b) { return b < 4 ? b : 4 * kNodes + (b - 4); }

  // The prescribed border unknowns (bit b: border unknown b), whose rows the rules above make
  // the scaled identity: the kept matrix leaves them out of its elimination (compact border,
  // bordered_block_tridiagonal.hpp). For two pulleys with fixed axes and a speed-driven P1,
  // 5 of the 10 border unknowns.
  std::uint32_t prescribedBorderMask() const {
    std::uint32_t mask = 0;
    for (int b = 0; b < kBorder; ++b)
      if (prescribedKind(borderDof(b)) != Prescribed::kNo) mask |= 1u << b;
    return mask;
  }

  // Which unknowns are prescribed, and how.
  enum class Prescribed : std::uint8_t { kNo, kFixed, kSpeed, kStaticLock };

  Prescribed prescribedKind(int dof) const {
    if (dof >= 4 * kNodes) {
      const int p = (dof - 4 * kNodes) / kCircleDofs;
      const int local = (dof - 4 * kNodes) % kCircleDofs;
      const CircleKind kind = circle_[p].kind;
      if (local < 2) return movingCentre(kind) ? Prescribed::kNo : Prescribed::kFixed;
      if (kind == CircleKind::kFixed) return Prescribed::kFixed;
      if (mode_ == Mode::kStatic) return Prescribed::kStaticLock;  // rotations locked (docs/model.md §8.3)
      return kind == CircleKind::kSpeedDriven ? Prescribed::kSpeed : Prescribed::kNo;
    }
    const int node = dof / 4, local = dof % 4;
    if (belt_.closed) {
      if (node == NE) return Prescribed::kFixed;  // unused block of a closed belt
      if (mode_ == Mode::kStatic && node == 0 && local == 0) return Prescribed::kStaticLock;
      return Prescribed::kNo;
    }
    const CableEnd end = node == 0 ? belt_.startEnd : (node == NE ? belt_.finishEnd : CableEnd::kFree);
    if (end == CableEnd::kClamped) return Prescribed::kFixed;
    if (end == CableEnd::kPinned && local < 2) return Prescribed::kFixed;
    return Prescribed::kNo;
  }

  // Row scale of a prescribed unknown: a mass of its kind, so the replaced residual has force
  // units and a size comparable with the free rows.
  double rowScale(int dof) const {
    if (dof >= 4 * kNodes) {
      const int p = (dof - 4 * kNodes) / kCircleDofs;
      const int local = (dof - 4 * kNodes) % kCircleDofs;
      if (local == 2) return circle_[p].inertia;
      return movingCentre(circle_[p].kind) ? centreMass(p) : lumpedNodeMass_;
    }
    return lumpedNodeMass_;
  }

  void applyPrescribedRows(const IterationPoint<Vector>& point, Vector& r) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    const IntegratorCoefficients& c = *point.coefficients;
    for (int p = 0; p < NP; ++p) reaction_[p] = 0.0;
    for (int dof = 0; dof < kSize; ++dof) {
      const Prescribed kind = prescribedKind(dof);
      if (kind == Prescribed::kNo) continue;
      const double m = rowScale(dof);
      if (mode_ == Mode::kStatic) {
        if (dof == nodeDof(0, 0) && kind == Prescribed::kStaticLock) staticLockReaction_ = r(dof);
        // Position level: Newton sets q to the lock (or keeps a fixed coordinate where it is).
        const double target = kind == Prescribed::kFixed ? staticPrevious_(dof) : staticLocks_(dof);
        r(dof) = m * (q(dof) - target);
        continue;
      }
      double target = 0.0;
      if (kind == Prescribed::kSpeed) {
        const int p = (dof - 4 * kNodes) / kCircleDofs;
        target = prescribedSpeed(p, point.time);
        // The drive supplies J alpha + d omega + contact torque - applied torque. For alpha it uses
        // the step's mean angular acceleration (omega(t) - omega(t - h)) / h instead of the
        // trapezoidal rule's end-point value, which oscillates by +-J alpha from step to step after
        // a kink in the speed profile (the rule's acceleration recursion has an eigenvalue -1).
        const double h = c.dampingFactor / c.gamma;
        const double meanAcceleration = (target - speedAtStepStart(p, point.time, h)) / h;
        reaction_[p] = r(dof) + circle_[p].inertia * (meanAcceleration - a(dof));
      }
      // Velocity level: delta = (v - target) / gamma' after the solve's scaling (see solve()).
      r(dof) = m * (v(dof) - target) / c.dampingFactor;
    }
  }

  void applyPrescribedMatrixRows() {
    for (int dof = 0; dof < kSize; ++dof) {
      if (prescribedKind(dof) == Prescribed::kNo) continue;
      matrix_.clearRow(dof);
      matrix_.addEntry(dof, dof, rowScale(dof));
    }
  }

  static bool movingCentre(CircleKind kind) {
    return kind == CircleKind::kFloating || kind == CircleKind::kTensionerArm;
  }
  // Translational mass of a moving centre: a tensioner's includes its arm (tensioner_arm.hpp).
  double centreMass(int p) const {
    return circle_[p].kind == CircleKind::kTensionerArm ? armGeometry_[p].equivalentMass : circle_[p].mass;
  }

  void circleResidual(int p, const Vector& q, const Vector& v, const Vector& a, double t, Vector& r) const {
    const CircleParameters& c = circle_[p];
    const int ix = circleDof(p, 0), iy = circleDof(p, 1), ip = circleDof(p, 2);
    if (c.kind == CircleKind::kTensionerArm) {
      const ArmForce f = armState(p, q, v);
      const double m = centreMass(p);
      const bool isStatic = mode_ == Mode::kStatic;
      for (int l = 0; l < 2; ++l) {
        const int i = circleDof(p, l);
        r(i) += (isStatic ? stabilizer_ * m * (q(i) - staticPrevious_(i)) : m * a(i)) - f.force(l);
      }
      if (isStatic) return;
    }
    if (mode_ == Mode::kStatic) {
      if (c.kind == CircleKind::kFloating) {
        r(ix) += c.supportStiffness * (q(ix) - c.centre(0)) + stabilizer_ * c.mass * (q(ix) - staticPrevious_(ix)) -
                 loadFactor_ * c.force(0);
        r(iy) += c.supportStiffness * (q(iy) - c.centre(1)) + stabilizer_ * c.mass * (q(iy) - staticPrevious_(iy)) -
                 loadFactor_ * c.force(1);
      }
      return;
    }
    r(ip) += c.inertia * a(ip) + c.rotationalDamping * v(ip) - appliedTorque(p, t);
    if (c.kind == CircleKind::kFloating) {
      r(ix) += c.mass * a(ix) + c.supportStiffness * (q(ix) - c.centre(0)) + c.supportDamping * v(ix) - c.force(0);
      r(iy) += c.mass * a(iy) + c.supportStiffness * (q(iy) - c.centre(1)) + c.supportDamping * v(iy) - c.force(1);
    }
  }

  void circleMatrix(int p, const Vector& q, const Vector& v, double massFactor, double stiffnessFactor,
                    double dampingFactor) {
    const CircleParameters& c = circle_[p];
    const int ip = circleDof(p, 2);
    if (c.kind == CircleKind::kTensionerArm) {
      const ArmForce f = armState(p, q, v);
      const double m = centreMass(p);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          // (f.damping is zero in the static solve.)
          const double value = stiffnessFactor * f.stiffness(i, j) + dampingFactor * f.damping(i, j);
          matrix_.addEntry(circleDof(p, i), circleDof(p, j), i == j ? value + massFactor * m : value);
        }
      if (mode_ == Mode::kStatic) return;
    }
    if (mode_ == Mode::kStatic) {
      if (c.kind == CircleKind::kFloating) {
        for (int l = 0; l < 2; ++l)
          matrix_.addEntry(circleDof(p, l), circleDof(p, l), stiffnessFactor * c.supportStiffness + massFactor * c.mass);
      }
      return;
    }
    matrix_.addEntry(ip, ip, massFactor * c.inertia + dampingFactor * c.rotationalDamping);
    if (c.kind == CircleKind::kFloating) {
      for (int l = 0; l < 2; ++l)
        matrix_.addEntry(circleDof(p, l), circleDof(p, l),
                 massFactor * c.mass + stiffnessFactor * c.supportStiffness + dampingFactor * c.supportDamping);
    }
  }

  void scatterElement(const Vector8& re, int e, Vector& r) const {
    r.template segment<4>(4 * e) += re.template head<4>();
    r.template segment<4>(4 * nextNode(e)) += re.template tail<4>();
  }

  // m += massFactor M_e: completes the element's Newton-matrix block massFactor M +
  // stiffnessFactor K + dampingFactor D, whose K and D part the element assembled.
  void addMassMatrix(double massFactor, Matrix8& m) const {
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) m(i, j) += massFactor * massElement_(i, j);
  }

  BeltParameters belt_;
  ContactParameters contact_;
  Element element_;
  Matrix8 massElement_ = Matrix8::Zero();
  double lumpedNodeMass_ = 1.0;
  CircleParameters circle_[NP];
  int circleCount_ = NP;
  Pair pair_[NE][NP];
  // What the last residual of the reference stepping computed, and where (residual()). Valid
  // from a complete evaluation until the next step, set-up or change of the friction.
  // Bare-metal builds leave it out (BELTSIM_RESIDUAL_MEMO=0, model/CMakeLists.txt): their
  // configurations decide the states inside Newton, where it does not apply, and it would take
  // their RAM.
  static constexpr int kMemoElements = kResidualMemo ? NE : 1;
  static constexpr int kMemoCircles = kResidualMemo ? NP : 1;
  static constexpr int kMemoSize = kResidualMemo ? kSize : 1;
  struct ResidualMemo {
    using MemoVector = Eigen::Matrix<double, kMemoSize, 1>;
    bool valid = false;
    MemoVector q = MemoVector::Zero(), v = MemoVector::Zero(), a = MemoVector::Zero();
    Vector8 element[kMemoElements];                   // element forces with inertia and gravity (LHS)
    bool evaluated[kMemoElements][kMemoCircles] = {};  // the pair's entries below are from that point
    PairForces pair[kMemoElements][kMemoCircles];
    SegmentHistory history[kMemoElements][kMemoCircles][NCS];  // the history the forces were computed with
    PairKinematics<NCS> kinematics[kMemoElements][kMemoCircles];
    // Bit for bit, so that -0.0 and +0.0 count as different points.
    bool samePoint(const Vector& q2, const Vector& v2, const Vector& a2) const {
      if (!kResidualMemo) return false;
      constexpr std::size_t bytes = sizeof(double) * kMemoSize;
      return std::memcmp(q.data(), q2.data(), bytes) == 0 && std::memcmp(v.data(), v2.data(), bytes) == 0 &&
             std::memcmp(a.data(), a2.data(), bytes) == 0;
    }
  };
  ResidualMemo memo_;
  SegmentShapeTable<NCS> shapeTable_;
  // The Newton matrix in the solver's order: the active storage and the refresh's.
  NewtonMatrix matrix_;
  Matrix11 contactStiffness_, contactDamping_;
  // Newton-matrix blocks of the last build (factorize), the factors they were built with, and
  // each pair's jacobianSignature at its build.
  Matrix8 elementBlock_[NE];
  Matrix11 pairBlock_[NE][NP];
  bool pairHeld_[NE][NP] = {};     // pairBlock_ holds the pair's share of the kept matrix (else zero)
  bool heldBlocksActive_ = false;  // pairBlock_ / pairHeld_ describe the active kept matrix
  std::uint64_t pairSignature_[NE][NP] = {};
  double blockFactors_[3] = {0.0, 0.0, 0.0};
  // Kept matrix of the fixed-cost stepper: each pair's jacobianSignature as the active matrix
  // (with its low-rank corrections) represents it, and as the refresh in progress evaluated it.
  using Updates = LowRankUpdates<kSize, kMaxLowRankColumns, 11>;
  Updates updates_;
  std::uint64_t matrixSignature_[NE][NP] = {};
  std::uint64_t shadowSignature_[NE][NP] = {};
  // Aged refresh (IntegratorSettings::blockAgeSteps): the kept signature each pairBlock_ was
  // evaluated with, whether elementBlock_ / pairBlock_ hold the fixed-cost matrix's blocks, and
  // which share of the elements the next refresh evaluates again.
  std::uint64_t pairBlockSignature_[NE][NP] = {};
  int pairAge_[NE][NP] = {};  // refreshes since pairBlock_ was evaluated
  int renewalCursor_ = 0;
  int refactoredBlocks_ = 0;  // chain blocks the last refactorSwitchedPairs eliminated again
  bool agedBlocksValid_ = false;
  int blockAge_ = 1;
  int ageSlice_ = 0;
  int refreshedElements_ = 0;
  bool blocksValid_ = false;
  bool factorized_ = false;  // the solver holds the factorization of exactly these blocks
  int keptChainBlocks_ = 0;  // chain blocks whose elimination the last reference build kept
  double scale_ = 1.0;
  double reaction_[NP] = {};
  double staticLockReaction_ = 0.0;
  double beltTorque_[NP] = {};
  Vector2 hubForce_[NP];
  ArmGeometry armGeometry_[NP];
  double armAnchor_[NP] = {};       // tensioner friction anchor, rad from the drawn position
  double armAnchorStart_[NP] = {};  // the same at the start of the step
  BeltDriveInput<NP> input_;
  BeltDriveInput<NP> previousInput_;
  Mode mode_ = Mode::kDynamic;
  bool decideInNewton_ = false;
  bool stiffenOnly_ = false;
  bool compactBorder_ = false;
  double loadFactor_ = 1.0;
  double stabilizer_ = 0.0;
  Vector staticPrevious_ = Vector::Zero();
  Vector staticLocks_ = Vector::Zero();
};

}  // namespace beltsim

// The kept Newton matrix of the fixed-cost stepper: the bodies of the members declared above.
#include "beltsim/system/kept_newton_matrix.hpp"
