// The belt-drive plant: NE ANCF cable elements (a closed belt, or an open cable), up to NP circles
// (pulleys, rolls) with NCS contact segments per element, all in fixed-size storage. It is the
// System of the steppers (reference_stepper.hpp, fixed_cost_stepper.hpp): it sums the residual of
// the elements, the contact pairs and the pulley bodies, keeps the Newton matrix's storage and
// solves with it, and runs the post-Newton step of every contact pair. A drive may use fewer
// circles than NP (setUp's pulleyCount): the unused ones are fixed and touch nothing, so one
// compiled NP serves every smaller count (the same motion; bits may differ from an NP-exact build).
//
// Its parts, one idea per header:
//   drive_parameters.hpp         what the drive is made of, and the pulleys' validation;
//   drive_layout.hpp             where each unknown sits in the state vector;
//   pulley_bodies.hpp            the pulleys as rigid bodies, their commands and reactions;
//   prescribed_rows.hpp          prescribed unknowns as replaced Newton rows (docs/model_drive_and_solver.md §7.4);
//   static_phase.hpp             the static solve's load factor, stabilizer and locks;
//   residual_memo.hpp            the last residual's pieces, reused at the same point;
//   reference_newton_matrix.hpp  the reference stepping's builds of the Newton matrix;
//   kept_newton_matrix.hpp       the fixed-cost stepping's kept matrix, switches and refreshes;
//   belt_newton_matrix.hpp       the matrix storage in the solver's order (border, then chain).
#pragma once
#include <cstdint>

#include <Eigen/Core>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "beltsim/system/belt_newton_matrix.hpp"
#include "beltsim/system/drive_layout.hpp"
#include "beltsim/system/drive_parameters.hpp"
#include "beltsim/system/kept_newton_matrix.hpp"
#include "beltsim/system/prescribed_rows.hpp"
#include "beltsim/system/pulley_bodies.hpp"
#include "beltsim/system/reference_newton_matrix.hpp"
#include "beltsim/system/residual_memo.hpp"
#include "beltsim/system/static_phase.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class BeltDrive {
  using Layout = DriveLayout<NE, NP>;

 public:
  static constexpr int kElements = NE;
  static constexpr int kPulleys = NP;
  static constexpr int kNodes = Layout::kNodes;
  static constexpr int kPulleyDofs = Layout::kPulleyDofs;
  static constexpr int kBorder = Layout::kBorder;
  static constexpr int kSize = Layout::kSize;
  using Vector = typename Layout::Vector;
  using Vector8 = typename Layout::Vector8;
  using NewtonMatrix = BeltNewtonMatrix<NE, NP>;
  using Solver = typename NewtonMatrix::Solver;
  using Element = AncfCable2D<double>;
  using Pair = ContactPair<NCS>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix11 = typename Pair::Matrix11;
  using Mode = DriveMode;
  static constexpr int kMaxLowRankColumns = KeptNewtonMatrix<NE, NP, NCS>::kMaxLowRankColumns;

  // ---- set-up ---------------------------------------------------------------------------------
  // Stores the parameters and element length; validates element, circles and contact. The
  // initial coordinates come from setInitialState (or a geometry helper).
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       const ContactParameters& contact) {
    return setUp(belt, elementLength, circles, NP, contact);
  }
  // The same with the first pulleyCount (1..NP; an open cable 0..NP) circles in use.
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact) {
    if (pulleyCount < (belt.closed ? 1 : 0) || pulleyCount > NP) return ParameterError::invalid("circle.count");
    memo_.valid = false;
    reference_.resetBorder();  // a drive set up again starts with the reference's whole border
    belt_ = belt;
    belt_.element.length = elementLength;
    ParameterError e = element_.setUp(belt_.element);
    if (!e.ok()) return e;
    if (!(isFinite(belt.thickness) && belt.thickness >= 0.0)) return ParameterError::invalid("belt.thickness");
    if (!(isFinite(belt.width) && belt.width > 0.0)) return ParameterError::invalid("belt.width");
    pulleys_.setCount(pulleyCount);
    for (int p = 0; p < pulleyCount; ++p) {
      e = pulleys_.setUp(p, circles[p]);
      if (!e.ok()) return e;
      e = setUpPairs(p, contact, elementLength);
      if (!e.ok()) return e;
    }
    contact_ = contact;
    pulleys_.clearInput();  // a drive set up again (a plant restarted, an FMU reset) has no commands
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
  const PulleyParameters& pulley(int p) const { return pulleys_.pulley(p); }
  // Circles in use (the first pulleyCount() of the NP compiled ones).
  int pulleyCount() const { return pulleys_.count(); }
  Pair& pair(int elementIndex, int circleIndex) { return pair_[elementIndex][circleIndex]; }
  const Pair& pair(int elementIndex, int circleIndex) const { return pair_[elementIndex][circleIndex]; }

  // ---- state layout (drive_layout.hpp) ----------------------------------------------------------
  static constexpr int nodeDof(int node, int local) { return Layout::nodeDof(node, local); }
  static constexpr int pulleyDof(int p, int local) { return Layout::pulleyDof(p, local); }
  int nextNode(int e) const { return belt_.closed && e == NE - 1 ? 0 : e + 1; }  // element e's second node
  Vector8 gatherElement(const Vector& x, int e) const { return Layout::gather(x, e, nextNode(e)); }
  CircleState circleState(const Vector& q, const Vector& v, int p) const { return pulleys_.state(q, v, p); }

  // ---- commands (pulley_bodies.hpp) ----------------------------------------------------------------
  // Called once per step, before it: the previous step's input is kept, so that a speed command
  // that changes from step to step gives the drive torque its J (omega_k - omega_k-1) / h.
  void setInput(const BeltDriveInput<NP>& input) { pulleys_.setInput(input); }
  const BeltDriveInput<NP>& input() const { return pulleys_.input(); }
  // Prescribed angular velocity of a speed-driven circle at time t.
  double prescribedSpeed(int p, double t) const { return pulleys_.prescribedSpeed(p, t); }
  // Prescribed angular velocity at the start of the step that ends at t: the previous step's
  // command when commands drive the circle, the profile at t - h otherwise.
  double speedAtStepStart(int p, double t, double h) const { return pulleys_.speedAtStepStart(p, t, h); }
  // Applied physical torque on circle p at time t (positive counter-clockwise).
  double appliedTorque(int p, double t) const { return pulleys_.appliedTorque(p, t); }

  // ---- static-phase controls (static_phase.hpp, docs/model_start_and_benchmark.md §8.3) ------------------------------
  void setMode(Mode mode) { phase_.mode = mode; }
  Mode mode() const { return phase_.mode; }
  // Static solve: load factor on gravity, stabilizer s (LHS + s M (q - qPrevious)), the locked
  // positions (used for circle rotations and node 0's x), and the previous load step's q.
  void setStaticLoad(double loadFactor, double stabilizer, const Vector& previous, const Vector& locks) {
    phase_.loadFactor = loadFactor;
    phase_.stabilizer = stabilizer;
    phase_.previous = previous;
    phase_.locks = locks;
  }
  // Viscous damper of circle p (N m s/rad), from the next residual on.
  void setRotationalDamping(int p, double damping) { pulleys_.setRotationalDamping(p, damping); }

  // Friction of every pair (static phase: mu = 0, mu_k tiny; dynamic: nominal) or of pulley
  // `only`'s (an injected fault), each keeping its history. Checked before anything is written,
  // on one pair per pulley (a pulley's pairs share their parameters, setUpPairs): an invalid
  // value changes nothing.
  ParameterError setFriction(const FrictionParameters& friction, int only = -1) {
    if (only < -1 || only >= pulleyCount()) return ParameterError::invalid("pulley");
    const int first = only < 0 ? 0 : only, last = only < 0 ? pulleyCount() - 1 : only;
    for (int p = first; p <= last; ++p) {
      const ParameterError e = pair_[0][p].checkFriction(friction);
      if (!e.ok()) return e;
    }
    memo_.valid = false;
    for (int k = 0; k < NE; ++k)
      for (int p = first; p <= last; ++p) (void)pair_[k][p].setFriction(friction);  // checked above
    return ParameterError::success();
  }

  // The belt's EA (an injected belt_stiffness fault, docs/injected_faults.md) from the next
  // residual on; the reference strain stays, so the pre-tension scales with EA.
  ParameterError setAxialStiffness(double EA) {
    if (!element_.setAxialStiffness(EA).ok()) return ParameterError::invalid("EA");
    belt_.element.EA = EA;
    memo_.valid = false;
    return ParameterError::success();
  }
  // A tensioner's spring rate and a pulley's bearing drag (injected faults, pulley_bodies.hpp).
  ParameterError setArmStiffnessFactor(int p, double factor) {
    memo_.valid = false;
    return pulleys_.setArmStiffnessFactor(p, factor);
  }
  ParameterError setBearingDrag(int p, double torque, double viscous) {
    memo_.valid = false;
    return pulleys_.setBearingDrag(p, torque, viscous);
  }

  // ---- stepping options --------------------------------------------------------------------------
  // false (the reference, docs/model_contact.md §4.6): the residual keeps every segment's contact flag and
  // stick/slip state as the last post-Newton step left them. true (the fixed-cost stepping): the
  // residual decides them at each evaluation (ContactPair::evaluateDecided) for the pairs that can
  // touch their circle within the step: a start-of-step gap within kDecisionMargin, far above what
  // a segment moves towards a pulley in one step (about 0.15 mm for a belt entering a 0.1 m
  // pulley at 1.2 m/s with 1 ms steps); a pair outside it is picked up in the next step.
  static constexpr double kDecisionMargin = 1e-3;  // m
  void setDecideInNewton(bool decide) { decideInNewton_ = decide; }
  void setStiffenOnly(bool stiffen) { kept_.setStiffenOnly(stiffen); }
  void setCompactBorder(bool compact) { reference_.setCompactBorder(compact); }
  void setBlockAge(int steps) { kept_.setBlockAge(steps); }
  // The fixed-cost stepping: a segment renewing its anchor under StickMemory::kWholeElement pulls
  // with the velocity penalty alone in every Newton-phase force (ContactPair::decidedView), as its
  // decided forces and the kept matrix take it.
  void setAnchorlessRenewing(bool anchorless) {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pair_[e][p].setAnchorlessRenewing(anchorless);
  }

  // ---- residual ------------------------------------------------------------------------------------
  // The residual at a point: elements, contact pairs, pulley bodies, then the prescribed rows. In
  // the reference stepping (dynamic, states held) it records its pieces with the point
  // (residual_memo.hpp); a second call at the same bits takes the element forces and the forces
  // of every pair whose Newton-phase history is unchanged, the full evaluation's result to the
  // bit. That call is the first residual of every post-Newton pass after the first.
  Status residual(const IterationPoint<Vector>& point, Vector& r) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    r.setZero();
    const bool isStatic = phase_.isStatic();
    const double gravityFactor = isStatic ? phase_.loadFactor : 1.0;
    const bool record = Memo::kEnabled && !isStatic && !decideInNewton_;
    const bool reuse = record && memo_.valid && memo_.samePoint(q, v, a);
    if (record && !reuse) memo_.begin(q, v, a);
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
        re.noalias() += phase_.stabilizer * (massElement_ * (qe - gatherElement(phase_.previous, e)));
      } else {
        addMassTimes(gatherElement(a, e), re);
      }
      re -= gravityFactor * element_.gravityForce();
      if (record) memo_.element[e] = re;
      scatterElement(re, e, r);
    }
    for (int p = 0; p < NP; ++p) {
      reactions_.beltTorque[p] = 0.0;
      reactions_.hubForce[p] = Vector2::Zero();
      if (p < pulleyCount()) {
        const Status s = addPairForces(p, q, v, record, reuse, r);
        if (s != Status::kOk) return s;
      }
      pulleys_.addResidual(p, q, v, a, point.time, phase_, r);
    }
    prescribed().applyToResidual(point, phase_, reactions_, r);
    if (record) memo_.valid = true;
    return Status::kOk;
  }

  // ---- Newton matrix and solve: the reference stepping's build (reference_newton_matrix.hpp) ------
  Status factorize(const IterationPoint<Vector>& point, MatrixUpdate update, bool& built) {
    const Status s = reference_.factorize(*this, store_, point, update, built);
    if (built) kept_.forgetAgedBlocks();  // the storage's blocks are no longer the kept matrix's
    if (reference_.tookActiveStorage()) kept_.forgetActiveMatrix();  // nor is its active matrix
    return s;
  }
  Status factorize(const IterationPoint<Vector>& point) {
    bool built = false;
    return factorize(point, MatrixUpdate::kFull, built);
  }
  int reusedChainBlocks() const { return reference_.reusedChainBlocks(); }
  // Border unknowns the active factorization eliminated (kBorder, or fewer with a compact border).
  int eliminatedBorderWidth() const { return store_.matrix.active().eliminatedBorderWidth(); }

  // The kept matrix of the fixed-cost stepping (kept_newton_matrix.hpp): a refresh in slices,
  // switches as low-rank columns, and partial re-factorizations.
  void beginRefresh() { kept_.beginRefresh(*this, store_); }
  Status refreshSlice(const IterationPoint<Vector>& point, int first, int last, int pairBudget = 0) {
    return kept_.refreshSlice(*this, store_, point, first, last, pairBudget);
  }
  Status finishRefresh(const IterationPoint<Vector>& point) {
    const Status s = kept_.finishRefresh(*this, store_, point);
    if (s == Status::kOk) reference_.invalidate();  // its blocks no longer describe the active matrix
    return s;
  }
  Status updateSwitches(const IterationPoint<Vector>& point, int maxColumns, int& columns, int& pending) {
    return kept_.updateSwitches(*this, store_, point, maxColumns, columns, pending);
  }
  // For a step with many stiffening switches: the pairs with one (at most maxPairs) evaluated
  // again, their blocks' change added to the active matrix, which is factorized again from the
  // first chain block they touch; nothing below minColumns columns' worth. `left`: stiffening
  // switches the matrix still lacks, -1 if the pairs were not scanned.
  Status refactorSwitchedPairs(const IterationPoint<Vector>& point, int maxPairs, int minColumns, int& pairs,
                               int& left) {
    return kept_.refactorSwitchedPairs(*this, store_, point, maxPairs, minColumns, pairs, left);
  }
  int refactoredBlocks() const { return kept_.refactoredBlocks(); }

  // Accelerations consistent with a state that is not an equilibrium (a start from rest in the
  // drawn configuration): M a = Q_ext(t) - Q(q, v), the contact forces included, with a = 0 on
  // every prescribed unknown. `point.a` is ignored; `point.coefficients` only serves the
  // residual's prescribed rows, which are then replaced by a = 0. Factorizes the mass matrix alone
  // in place of the Newton matrix: the next factorize is a full build.
  Status consistentAccelerations(const IterationPoint<Vector>& point, Vector& a) {
    const Vector zero = Vector::Zero();
    IterationPoint<Vector> atZero = point;
    atZero.a = &zero;
    Vector r;
    Status s = residual(atZero, r);
    if (s != Status::kOk) return s;
    const PrescribedRows<NE, NP> rows = prescribed();
    for (int dof = 0; dof < kSize; ++dof)
      if (rows.prescribed(dof)) r(dof) = 0.0;
    reference_.invalidate();
    NewtonMatrix& matrix = store_.matrix;
    matrix.assembleInPlace();
    kept_.forgetActiveMatrix();
    matrix.beginAssembly();
    matrix.target().setInactiveBorder(0);
    for (int e = 0; e < NE; ++e) {
      Matrix8 m = Matrix8::Zero();
      addMassMatrix(1.0, m);
      matrix.addElementMatrix(e, nextNode(e), m);
    }
    for (int p = 0; p < NP; ++p) pulleys_.addMatrix(p, *point.q, *point.v, 1.0, 0.0, 0.0, phase_.mode, matrix);
    rows.applyToMatrix(matrix);
    matrix.finishAssembly();
    s = matrix.target().factorize();
    if (s != Status::kOk) return s;
    matrix.setActiveScale(1.0);
    s = solve(r, a);
    a = -a;
    return s;
  }

  // The active Newton matrix (assembled entries and factorization), in the solver's order.
  const Solver& activeMatrix() const { return store_.matrix.active(); }

  // delta = A^-1 r. The matrix was built with its stiffness factor divided out (rows of force per
  // metre), so r is scaled by it first; the kept matrix's low-rank columns correct the result.
  Status solve(const Vector& r, Vector& delta) const {
    Vector rhs;
    NewtonMatrix::toSolverOrder(r, rhs);
    rhs *= store_.matrix.activeScale();
    Vector x;
    const Status s = store_.matrix.active().solve(rhs, x);
    if (s == Status::kOk) kept_.correct(x);
    NewtonMatrix::fromSolverOrder(x, delta);
    return s;
  }

  // ---- step boundaries and the post-Newton step --------------------------------------------------
  // Back to the start-of-step history (a step that faulted after its residuals decided states).
  void rejectStep() {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair_[e][p].rejectStep();
    pulleys_.rejectStep();
  }

  void beginStep() {
    memo_.valid = false;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair_[e][p].beginStep();
    pulleys_.beginStep();
  }

  // e_PNS: sum over the segments of a pair, maximum over the pairs, the tensioner arms and the
  // bearing drags (docs/model_contact.md §4.7). At the point of the last residual the pairs it evaluated hand their
  // segment points and kinematics over (residual_memo.hpp).
  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    Status worst = Status::kOk;
    pulleys_.postNewtonStep(*point.q, *point.v, phase_.mode, error);
    const bool atMemo = Memo::kEnabled && !phase_.isStatic() && !decideInNewton_ && memo_.valid &&
                        memo_.samePoint(*point.q, *point.v, *point.a);
    for (int p = 0; p < pulleyCount(); ++p) {
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

  // Initialises every pair's history from the current geometry (docs/model_start_and_benchmark.md §8.4): contact
  // (g <= 0): stick, anchored at x_cur; otherwise undefined. Also the start-of-step copy; the
  // tensioner arms' friction and the bearing drags are anchored where they are.
  void initializeContactHistory(const Vector& q, const Vector& v) {
    pulleys_.anchorArms(q, v, phase_.mode);
    for (int p = 0; p < pulleyCount(); ++p) {
      const CircleState cs = circleState(q, v, p);
      for (int e = 0; e < NE; ++e)
        pair_[e][p].initializeHistory(gatherElement(q, e), gatherElement(v, e), belt_.element.length, cs);
    }
  }

  // ---- outputs at the last residual ----------------------------------------------------------------
  // Static solve of a closed belt: the force (N, physical, along x) that the lock of node 0's x
  // applies to the belt, part of the belt's free body around pulley 1 (node 0 is where the belt
  // leaves it); not zero, as the bristles' tiny static stiffness does not quite balance it.
  double staticLockReaction() const { return reactions_.staticLockReaction; }
  // Reaction of a prescribed circle rotation: the torque the drive applies (physical, positive
  // counter-clockwise), N m.
  double driveTorque(int p) const { return reactions_.driveTorque[p]; }
  // Torque of the belt's contact forces on circle p (physical, positive counter-clockwise), N m.
  // At steady state on the load pulley: -(applied load + damper torque).
  double beltTorque(int p) const { return reactions_.beltTorque[p]; }
  // Force of the belt's contact forces on circle p (physical), N: what its axle (or, for a
  // floating circle, its support) carries.
  Vector2 hubForce(int p) const { return reactions_.hubForce[p]; }
  // Tensioner arm of circle p at coordinates q, velocities v: its angle from the drawn position
  // (rad, counter-clockwise), spring torque and total torque about the pivot.
  ArmForce armState(int p, const Vector& q, const Vector& v) const { return pulleys_.armState(p, q, v, phase_.mode); }
  const ArmGeometry& armGeometryOf(int p) const { return pulleys_.armGeometryOf(p); }

  // ---- what the Newton-matrix builders read (reference_newton_matrix.hpp, kept_newton_matrix.hpp) --
  const PulleyBodies<NE, NP>& pulleys() const { return pulleys_; }
  const StaticPhase<Vector>& phase() const { return phase_; }
  // The prescribed unknowns' rows (prescribed_rows.hpp).
  PrescribedRows<NE, NP> prescribed() const { return {pulleys_, belt_, phase_.mode, lumpedNodeMass_}; }
  // The shape-function table of the segment points (built in setUp; rebuilt here if the element
  // length or the contact's segment count was changed since).
  const SegmentShapeTable<NCS>& shapeTable() {
    if (!shapeTable_.matches(belt_.element.length, contact_.segmentCount))
      shapeTable_.build(belt_.element.length, contact_.segmentCount);
    return shapeTable_;
  }

  // m += massFactor M_e: completes the element's Newton-matrix block massFactor M +
  // stiffnessFactor K + dampingFactor D, whose K and D part the element assembled.
  void addMassMatrix(double massFactor, Matrix8& m) const {
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) m(i, j) += massFactor * massElement_(i, j);
  }

 private:
  using Memo = ResidualMemo<NE, NP, NCS, kSize>;

  // Pair (e, p)'s contact setup for every element: the circle's radius, the belt surface's offset
  // on the circle's side, the tension allowance and the arc sag (docs/model_contact.md §4.1, §4.11).
  ParameterError setUpPairs(int p, const ContactParameters& contact, double elementLength) {
    const ContactParameters cp = pairContact(contact, pulleys_.pulley(p), belt_, elementLength);
    for (int k = 0; k < NE; ++k) {
      const ParameterError e = pair_[k][p].setUp(cp);
      if (!e.ok()) return e;
    }
    return ParameterError::success();
  }

  // The contact forces of circle p's pairs: decided at the evaluation (fixed-cost stepping) or
  // with the held states, from the memo where the point and the pair's history are unchanged.
  Status addPairForces(int p, const Vector& q, const Vector& v, bool record, bool reuse, Vector& r) {
    const CircleState cs = circleState(q, v, p);
    for (int e = 0; e < NE; ++e) {
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
      r(pulleyDof(p, 0)) += f.circleForce(0);
      r(pulleyDof(p, 1)) += f.circleForce(1);
      r(pulleyDof(p, 2)) += f.circleTorque;
      reactions_.beltTorque[p] -= f.circleTorque;  // LHS -> physical torque of the belt on the circle
      reactions_.hubForce[p] -= f.circleForce;
    }
    return Status::kOk;
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
  void scatterElement(const Vector8& re, int e, Vector& r) const { Layout::scatter(re, e, nextNode(e), r); }

  // What the drive is.
  BeltParameters belt_;
  ContactParameters contact_;
  Element element_;
  Matrix8 massElement_ = Matrix8::Zero();
  double lumpedNodeMass_ = 1.0;
  PulleyBodies<NE, NP> pulleys_;
  Pair pair_[NE][NP];
  SegmentShapeTable<NCS> shapeTable_;
  // How it is being solved.
  StaticPhase<Vector> phase_;
  bool decideInNewton_ = false;
  Memo memo_;
  PulleyReactions<NP> reactions_;
  // The Newton matrix: its storages in the solver's order (the active one and a refresh's) with
  // the blocks of the last build, and the two ways of building it.
  NewtonStorage<NE, NP> store_;
  ReferenceNewtonMatrix<NE, NP, NCS> reference_;
  KeptNewtonMatrix<NE, NP, NCS> kept_;
};

}  // namespace beltsim
