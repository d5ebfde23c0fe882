// The belt-drive plant on the material mesh: NE ANCF cable elements that travel with the belt (a
// closed belt, or an open cable), up to NP pulleys (or rolls) with NCS contact segments per
// element, all in fixed-size storage. It is the System of the steppers (reference_stepper.hpp,
// fixed_cost_stepper.hpp): it sums the residual of the elements, the contact pairs and the pulley
// bodies, keeps the Newton matrix's storage and solves with it, and runs the post-Newton step of
// every contact pair. A drive may use fewer pulleys than NP (setUp's pulleyCount): the unused ones
// are fixed and touch nothing, so one compiled NP serves every smaller count (the same motion; bits
// may differ from an NP-exact build).
//
// Its parts, one idea per header:
//   pulleys_and_pairs.hpp        what both meshes share: the belt, the pulley bodies, the pairs,
//                                their reactions, the static controls and the injected faults;
//   drive_layout.hpp             where each unknown sits in the state vector;
//   prescribed_rows.hpp          prescribed unknowns as replaced Newton rows (docs/model_drive_and_solver.md §7.4);
//   residual_memo.hpp            the last residual's pieces, reused at the same point;
//   reference_newton_matrix.hpp  the reference stepping's builds of the Newton matrix;
//   kept_newton_matrix.hpp       the fixed-cost stepping's kept matrix, switches and refreshes;
//   belt_newton_matrix.hpp       the matrix storage in the solver's order (border, then chain).
#pragma once
#include <Eigen/Core>

#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/system/belt_newton_matrix.hpp"
#include "beltsim/system/kept_newton_matrix.hpp"
#include "beltsim/system/pulleys_and_pairs.hpp"
#include "beltsim/system/reference_newton_matrix.hpp"
#include "beltsim/system/residual_memo.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class BeltDrive : public PulleysAndPairs<NE, NP, NCS> {
  using Base = PulleysAndPairs<NE, NP, NCS>;
  using Layout = DriveLayout<NE, NP>;

 public:
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
  static constexpr int kMaxLowRankColumns = KeptNewtonMatrix<NE, NP, NCS>::kMaxLowRankColumns;
  using Base::belt;
  using Base::prescribed;
  using Base::nextNode;
  using Base::pair;
  using Base::pulleyCount;
  using Base::pulleyDof;

  // ---- set-up ---------------------------------------------------------------------------------
  // Stores the parameters and element length; validates element, pulleys and contact. The
  // initial coordinates come from setInitialState (or a geometry helper).
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       const ContactParameters& contact) {
    return setUp(belt, elementLength, circles, NP, contact);
  }
  // The same with the first pulleyCount (1..NP; an open cable 0..NP) pulleys in use.
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact) {
    memo_.valid = false;
    reference_.resetBorder();  // a drive set up again starts with the reference's whole border
    BeltParameters own = belt;
    own.element.length = elementLength;
    ParameterError e = element_.setUp(own.element);
    if (!e.ok()) return e;
    e = Base::setUpPulleys(own, circles, pulleyCount);
    if (!e.ok()) return e;
    for (int k = 0; k < NE; ++k) {
      e = Base::setUpPairs(k, contact, elementLength, 1.0);
      if (!e.ok()) return e;
    }
    shapeTable_.build(elementLength, contact.segmentCount);
    const Matrix8& m = element_.massMatrix();
    Base::setLumpedNodeMass(m(0, 0) + m(0, 4));  // row sum of the position part: rho A L / 2
    return ParameterError::success();
  }

  const Element& element() const { return element_; }

  // ---- state layout (drive_layout.hpp) ----------------------------------------------------------
  Vector8 gatherElement(const Vector& x, int e) const { return Layout::gather(x, e, nextNode(e)); }

  // Friction of every pair or of pulley `only`'s (PulleysAndPairs::setScaledFriction): every
  // element's contact scale is 1.
  ParameterError setFriction(const FrictionParameters& friction, int only = -1) {
    return Base::setScaledFriction(friction, only, [](int) { return 1.0; });
  }
  // The belt's EA (an injected belt_stiffness fault, docs/injected_faults.md) from the next
  // residual on; the reference strain stays, so the pre-tension scales with EA.
  ParameterError setAxialStiffness(double EA) {
    if (!element_.setAxialStiffness(EA).ok()) return ParameterError::invalid("EA");
    Base::recordAxialStiffness(EA);
    return ParameterError::success();
  }

  // ---- stepping options (the contact states in the residual: pulleys_and_pairs.hpp) -------------
  void setStiffenOnly(bool stiffen) { kept_.setStiffenOnly(stiffen); }
  void setCompactBorder(bool compact) { reference_.setCompactBorder(compact); }
  void setBlockAge(int steps) { kept_.setBlockAge(steps); }
  // The fixed-cost stepping: a segment renewing its anchor under StickMemory::kWholeElement pulls
  // with the velocity penalty alone in every Newton-phase force (ContactPair::decidedView), as its
  // decided forces and the kept matrix take it.
  void setAnchorlessRenewing(bool anchorless) {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pair(e, p).setAnchorlessRenewing(anchorless);
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
    const StaticPhase<Vector>& phase = Base::phase();
    const bool isStatic = phase.isStatic();
    const double gravityFactor = isStatic ? phase.loadFactor : 1.0;
    const bool record = Memo::kEnabled && !isStatic && !Base::decidesInNewton();
    const bool reuse = record && memoValid() && memo_.samePoint(q, v, a);
    if (record && !reuse) memo_.begin(q, v, a, Base::revision());
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
        re.noalias() += phase.stabilizer * (element_.massMatrix() * (qe - gatherElement(phase.previous, e)));
      } else {
        addMassTimes(gatherElement(a, e), re);
      }
      re -= gravityFactor * element_.gravityForce();
      if (record) memo_.element[e] = re;
      scatterElement(re, e, r);
    }
    const Status s = Base::addPulleyRows(point, r, [&](int p, const CircleState& circle) {
      return addPulleyPairs(p, q, v, circle, record, reuse, r);
    });
    if (s != Status::kOk) return s;
    Base::applyPrescribed(point, r);
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
  int eliminatedBorderWidth() const { return store_.matrix.solving().eliminatedBorderWidth(); }

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
    matrix.buildInSolving();
    kept_.forgetActiveMatrix();
    matrix.beginAssembly();
    matrix.building().setInactiveBorder(0);
    for (int e = 0; e < NE; ++e) {
      Matrix8 m = Matrix8::Zero();
      addMassMatrix(1.0, m);
      matrix.addElementMatrix(e, nextNode(e), m);
    }
    for (int p = 0; p < NP; ++p)
      Base::pulleys().addMatrix(p, *point.q, *point.v, 1.0, 0.0, 0.0, Base::mode(), matrix);
    rows.applyToMatrix(matrix);
    matrix.finishAssembly();
    s = matrix.building().factorize();
    if (s != Status::kOk) return s;
    matrix.setSolveScale(1.0);
    s = solve(r, a);
    a = -a;
    return s;
  }

  // The active Newton matrix (assembled entries and factorization), in the solver's order.
  const Solver& activeMatrix() const { return store_.matrix.solving(); }

  // delta = A^-1 r. The matrix was built with its stiffness factor divided out (rows of force per
  // metre), so r is scaled by it first; the kept matrix's low-rank columns correct the result.
  Status solve(const Vector& r, Vector& delta) const {
    Vector rhs;
    NewtonMatrix::toSolverOrder(r, rhs);
    rhs *= store_.matrix.solveScale();
    Vector x;
    const Status s = store_.matrix.solving().solve(rhs, x);
    if (s == Status::kOk) kept_.correct(x);
    NewtonMatrix::fromSolverOrder(x, delta);
    return s;
  }

  // ---- step boundaries and the post-Newton step (rejectStep: pulleys_and_pairs.hpp) ---------------
  void beginStep() {
    memo_.valid = false;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair(e, p).beginStep();
    Base::pulleyBodies().beginStep();
  }

  // e_PNS: sum over the segments of a pair, maximum over the pairs, the tensioner arms and the
  // bearing drags (docs/model_contact.md §4.7). At the point of the last residual the pairs it evaluated hand their
  // segment points and kinematics over (residual_memo.hpp).
  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    Status worst = Status::kOk;
    Base::pulleyBodies().postNewtonStep(*point.q, *point.v, Base::mode(), error);
    const bool atMemo = Memo::kEnabled && !Base::phase().isStatic() && !Base::decidesInNewton() && memoValid() &&
                        memo_.samePoint(*point.q, *point.v, *point.a);
    for (int p = 0; p < pulleyCount(); ++p) {
      const CircleState cs = Base::circleState(*point.q, *point.v, p);
      for (int e = 0; e < NE; ++e) {
        double pairError = 0.0;
        const PairKinematics<NCS>* known = atMemo && memo_.evaluated[e][p] ? &memo_.kinematics[e][p] : nullptr;
        const Status s = pair(e, p).postNewtonStep(gatherElement(*point.q, e), gatherElement(*point.v, e),
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
    Base::pulleyBodies().anchorArms(q, v, Base::mode());
    for (int p = 0; p < pulleyCount(); ++p) {
      const CircleState cs = Base::circleState(q, v, p);
      for (int e = 0; e < NE; ++e)
        pair(e, p).initializeHistory(gatherElement(q, e), gatherElement(v, e), belt().element.length, cs);
    }
  }

  // ---- what the Newton-matrix builders read (reference_newton_matrix.hpp, kept_newton_matrix.hpp) --
  // The shape-function table of the segment points (built in setUp; rebuilt here if the element
  // length or the contact's segment count was changed since).
  const SegmentShapeTable<NCS>& shapeTable() {
    if (!shapeTable_.matches(belt().element.length, Base::contact().segmentCount))
      shapeTable_.build(belt().element.length, Base::contact().segmentCount);
    return shapeTable_;
  }

  // m += massFactor M_e: completes the element's Newton-matrix block massFactor M +
  // stiffnessFactor K + dampingFactor D, whose K and D part the element assembled.
  void addMassMatrix(double massFactor, Matrix8& m) const {
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) m(i, j) += massFactor * element_.massMatrix()(i, j);
  }

 private:
  using Memo = ResidualMemo<NE, NP, NCS, kSize>;

  bool memoValid() const { return memo_.valid && memo_.revision == Base::revision(); }

  // The contact forces of pulley p's pairs: decided at the evaluation (fixed-cost stepping) or
  // with the held states, from the memo where the point and the pair's history are unchanged.
  Status addPulleyPairs(int p, const Vector& q, const Vector& v, const CircleState& cs, bool record, bool reuse,
                        Vector& r) {
    for (int e = 0; e < NE; ++e) {
      Pair& pair = this->pair(e, p);
      if (!Base::evaluates(pair)) continue;
      PairForces f;
      Status s = Status::kOk;
      if (Base::decidesInNewton()) {
        s = pair.evaluateDecided(gatherElement(q, e), gatherElement(v, e), shapeTable(), cs, f);
      } else {
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
      Base::addPairForces(p, f, r);
    }
    return Status::kOk;
  }

  // out += M x for the element mass matrix, whose only nonzeros are M(2i + c, 2j + c) (the 4 x 4
  // Hermite mass times the 2 x 2 identity): 32 products instead of a general 8 x 8 product.
  void addMassTimes(const Vector8& x, Vector8& out) const {
    const Matrix8& mass = element_.massMatrix();
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 2; ++c) {
        double sum = mass(2 * i + c, c) * x(c);
        for (int j = 1; j < 4; ++j) sum += mass(2 * i + c, 2 * j + c) * x(2 * j + c);
        out(2 * i + c) += sum;
      }
  }
  void scatterElement(const Vector8& re, int e, Vector& r) const { Layout::scatter(re, e, nextNode(e), r); }

  // The mesh: NE equal elements that travel with the belt.
  Element element_;
  SegmentShapeTable<NCS> shapeTable_;
  // How it is being solved.
  Memo memo_;
  // The Newton matrix: its storages in the solver's order (the active one and a refresh's) with
  // the blocks of the last build, and the two ways of building it.
  NewtonStorage<NE, NP> store_;
  ReferenceNewtonMatrix<NE, NP, NCS> reference_;
  KeptNewtonMatrix<NE, NP, NCS> kept_;
};

}  // namespace beltsim
