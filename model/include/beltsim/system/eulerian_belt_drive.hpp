// A closed belt drive on the eulerian mesh (docs/model_element.md §2.11): NE
// ANCF elements whose nodes stay where they started on the belt's path, each node with the
// material coordinate p_i of the material at it as an unknown of its own, up to NP circles with
// NCS contact segments per element, each element of its own mesh length (graded meshes). It is the
// System of the reference stepper (reference_stepper.hpp) and of the static solve
// (static_equilibrium.hpp), and of the fixed-cost stepper (fixed_cost_stepper.hpp: the iterations
// decide the contact states, the matrix is refreshed in slices, no switch columns).
//
// Unknowns: the material drive's layout (drive_layout.hpp; node NE's slots unused) followed by
// p_0 .. p_{NE-1} (m of reference length). Element e spans nodes e and e+1 (the last one closes
// the belt: its end carries p_0 plus the belt's reference length). Per element, with lambda =
// (pB - pA)/L, the material passing the mesh at w = -(pA_dot N_A + pB_dot N_B)/lambda and the
// material rates q_dot_m = q_dot + w_A T_A q + w_B T_B q (material_velocity.hpp):
//   rows of (q, pA, pB):  the material's inertia (eulerian_flow_inertia.hpp)
//                         + the elastic forces of its material (eulerian_cable2d.hpp)
//                         + the gravity potential -lambda F_g^T q
//                         + forces on the material F(q, q_dot_m) (strain-rate damping, contact):
//                           F on the element's rows, -(1/lambda) F^T T_a q on p_a's row.
// Every node keeps its place on the path: its velocity along its start tangent is 0 (a velocity-
// level row in place of its tangential force row, whose reaction is the discretisation's share;
// the normal force row stays). So the nodes never drift and no slide of the mesh is left to fix.
// The contact histories are carried with the material at the start of every step, each segment by
// the distance its material crossed the mesh in the last accepted step (anchor_transport.hpp).
//
// Static solve (mode kStatic, docs/model_element.md §2.11): no inertia, gravity at the load factor, the
// stabilizer s M (x - x_previous) on (q, p), every node held at its locked position along its
// start tangent, p_0 held at its lock (the frictionless belt could otherwise slide through the
// mesh) and the circles' rotations locked (prescribed_rows.hpp).
//
// Newton matrix: eulerian_newton_matrix.hpp (a block of 5 per node, its two storages, the rows it
// keeps, the refresh's elimination in slices, the solve); this class computes its entries.
#pragma once
#include "beltsim/contact/carried_histories.hpp"
#include "beltsim/contact/contact_jacobian.hpp"  // and the pair itself
#include "beltsim/element/eulerian_element_kinematics.hpp"  // and material_velocity.hpp
#include "beltsim/element/eulerian_cable2d.hpp"
#include "beltsim/element/eulerian_flow_inertia.hpp"
#include "beltsim/system/eulerian_newton_matrix.hpp"
#include "beltsim/system/prescribed_rows.hpp"  // and the layout, the pulleys, the stepper's interface

namespace beltsim {

template <int NE, int NP, int NCS>
class EulerianBeltDrive {
  using Layout = DriveLayout<NE, NP>;

 public:
  static_assert(NE >= 3, "a closed belt of at least 3 elements");
  static constexpr int kElements = NE;
  static constexpr int kPulleys = NP;
  static constexpr int kLayoutSize = Layout::kSize;
  static constexpr int kSize = Layout::kSize + NE;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using LayoutVector = typename Layout::Vector;
  using Vector2 = Eigen::Matrix<double, 2, 1>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Vector10 = Eigen::Matrix<double, 10, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix10 = Eigen::Matrix<double, 10, 10>;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;
  using Element = AncfCable2D<double>;
  using Pair = ContactPair<NCS>;
  using Mode = DriveMode;
  using NewtonMatrix = EulerianNewtonMatrix<NE, NP>;
  static constexpr int kBorder = NewtonMatrix::kBorder;  // node 0 with p_0, the circles

  static constexpr int kNodes = NE;  // the layout's node NE is unused (the belt closes on node 0)
  static constexpr int materialDof(int node) { return Layout::kSize + node; }
  static constexpr int nodeDof(int node, int local) { return Layout::nodeDof(node, local); }
  static constexpr int pulleyDof(int p, int local) { return Layout::pulleyDof(p, local); }

  // ---- set-up ---------------------------------------------------------------------------------
  // A closed belt of NE elements of mesh lengths elementLength[e] (graded meshes: docs/model_element.md
  // §2.11); reference curvature 0. The contact's per-segment values (k_c, d_c, mu_k, mu_v: a value
  // per unit area times a segment's area, paper_parameters.hpp) are those of an element of length
  // contactLength: each element's pairs take them in proportion to its own length.
  ParameterError setUp(const BeltParameters& belt, const double (&elementLength)[NE], const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact, double contactLength) {
    pnsKinematicsValid_ = false;
    if (!belt.closed) return ParameterError::invalid("belt.closed");
    if (!(contactLength > 0.0 && isFinite(contactLength))) return ParameterError::invalid("contactLength");
    if (pulleyCount < 1 || pulleyCount > NP) return ParameterError::invalid("circle.count");
    belt_ = belt;
    ParameterError e = ParameterError::success();
    pulleys_.setCount(pulleyCount);
    for (int p = 0; p < pulleyCount; ++p) {
      e = pulleys_.setUp(p, circles[p]);
      if (!e.ok()) return e;
    }
    for (int k = 0; k < NE; ++k) {
      BeltParameters b = belt;
      b.element.length = elementLength[k];
      length_[k] = elementLength[k];
      e = cable_[k].setUp(b.element);
      if (!e.ok()) return e;
      e = element_[k].setUp(b.element);
      if (!e.ok()) return e;
      e = flow_[k].setUp(elementLength[k], b.element.massPerLength);
      if (!e.ok()) return e;
      e = material_[k].setUp(elementLength[k]);
      if (!e.ok()) return e;
      for (int a = 0; a < 2; ++a) nodalSlope_[k][a] = material_[k].nodalSlopeMatrix(a);
      shapeTable_[k].build(elementLength[k], contact.segmentCount);
      contactScale_[k] = elementLength[k] / contactLength;
      ContactParameters own = contact;
      own.contactStiffness *= contactScale_[k];
      own.contactDamping *= contactScale_[k];
      own.friction = scaledFriction(contact.friction, k);
      for (int p = 0; p < pulleyCount; ++p) {
        e = pair_[k][p].setUp(pairContact(own, circles[p], b, elementLength[k]));
        if (!e.ok()) return e;
      }
    }
    belt_.element.length = elementLength[0];
    contact_ = contact;
    pulleys_.clearInput();
    // The velocity rows of the nodes on the path are scaled with the mass of the shortest element.
    int shortest = 0;
    for (int k = 1; k < NE; ++k)
      if (length_[k] < length_[shortest]) shortest = k;
    const Matrix8& m = element_[shortest].massMatrix();
    lumpedNodeMass_ = m(0, 0) + m(0, 4);
    return ParameterError::success();
  }
  // Uniform elements of mesh length elementLength.
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact) {
    double lengths[NE];
    for (double& l : lengths) l = elementLength;
    return setUp(belt, lengths, circles, pulleyCount, contact, elementLength);
  }

  // Starts from a full state at rest (positions with p_{i+1} - p_i of about L_i, e.g. the static
  // solve's): every node held on its start tangent; an element is paired with a circle for the whole
  // run if both its nodes and its middle lie within 1 mm of the circle's belt centre-line radius; the
  // paired elements' segments in contact stick where they are (ContactPair::initializeHistory).
  Status startFrom(const Vector& x) {
    if (!x.allFinite()) return Status::kNonFiniteValue;
    const Vector zero = Vector::Zero();
    initializeContactHistory(x, zero);
    return Status::kOk;
  }
  // The same at any state (the static solve's start and end; a non-finite state pairs nothing, and
  // the residual reports it).
  void initializeContactHistory(const Vector& x, const Vector& v) {
    holdNodes(x);
    const LayoutVector qL = x.template head<Layout::kSize>(), vL = v.template head<Layout::kSize>();
    pulleys_.anchorArms(qL, vL, phase_.mode);
    for (int p = 0; p < pulleyCount(); ++p) {
      const PulleyParameters& c = pulleys_.pulley(p);
      const double radius = c.radius + 0.5 * belt_.thickness * c.side;
      const CircleState cs = circleState(x, v, p);
      for (int e = 0; e < NE; ++e) {
        const Vector8 qe = gatherElement(x, e);
        Vector2 middle;
        bool on = element_[e].position(qe, 0.5 * length_[e], middle) == Status::kOk;
        const Vector2 points[3] = {qe.template head<2>(), qe.template segment<2>(4), middle};
        for (const Vector2& r : points) on = on && std::fabs((r - c.centre).norm() - radius) < 1e-3;
        paired_[e][p] = on && wrappedCircle(e, p) < 0;  // one pulley per element: one pair block each
        for (int i = 0; i < contact_.segmentCount; ++i) pair_[e][p].setHistory(i, SegmentHistory{});
        if (on) pair_[e][p].initializeHistory(qe, gatherElement(v, e), length_[e], cs);
        pair_[e][p].beginStep();
      }
    }
    resetTransport();
  }

  // ---- static-phase controls (static_phase.hpp, static_equilibrium.hpp) ------------------------
  void setMode(Mode mode) { phase_.mode = mode; }
  Mode mode() const { return phase_.mode; }
  void setStaticLoad(double loadFactor, double stabilizer, const Vector& previous, const Vector& locks) {
    phase_.loadFactor = loadFactor;
    phase_.stabilizer = stabilizer;
    phase_.previous = previous.template head<Layout::kSize>();
    phase_.locks = locks.template head<Layout::kSize>();
    staticPrevious_ = previous;
    staticLocks_ = locks;
  }
  // Friction parameters of every pair (the static solve: mu = 0; then the nominal ones), or of
  // pulley `only`'s pairs (an injected friction fault, injected_faults.hpp), per segment of an
  // element of setUp's contactLength. Every pair's scaled values are checked before any is
  // written: an invalid value changes nothing.
  ParameterError setFriction(const FrictionParameters& friction, int only = -1) {
    if (only < -1 || only >= pulleyCount()) return ParameterError::invalid("pulley");
    const int first = only < 0 ? 0 : only, last = only < 0 ? pulleyCount() - 1 : only;
    for (int e = 0; e < NE; ++e)
      for (int p = first; p <= last; ++p) {
        const ParameterError f = pair_[e][p].checkFriction(scaledFriction(friction, e));
        if (!f.ok()) return f;
      }
    for (int e = 0; e < NE; ++e)
      for (int p = first; p <= last; ++p) (void)pair_[e][p].setFriction(scaledFriction(friction, e));  // checked
    return ParameterError::success();
  }

  // The belt's axial stiffness EA (an injected belt_stiffness fault), as BeltDrive's: checked for
  // both parts of every element before any is written.
  ParameterError setAxialStiffness(double EA) {
    if (!Element::checkAxialStiffness(EA).ok() || !EulerianCable2D::checkAxialStiffness(EA).ok())
      return ParameterError::invalid("EA");
    for (int e = 0; e < NE; ++e) {
      (void)element_[e].setAxialStiffness(EA);  // checked above
      (void)cable_[e].setAxialStiffness(EA);
    }
    belt_.element.EA = EA;
    return ParameterError::success();
  }
  // A tensioner's spring rate and a pulley's bearing drag (injected faults, pulley_bodies.hpp).
  ParameterError setArmStiffnessFactor(int p, double factor) {
    return pulleys_.setArmStiffnessFactor(p, factor);
  }
  ParameterError setBearingDrag(int p, double torque, double viscous) {
    return pulleys_.setBearingDrag(p, torque, viscous);
  }

  // The step size h (s) of the stepper: the histories are carried by the mesh speed times h at
  // each step's start. Until a positive h is given, every dynamic step faults (its post-Newton
  // step returns kInvalidParameter); the static solve carries nothing, by its mode.
  ParameterError setStepSize(double h) {
    if (!(isFinite(h) && h > 0.0)) return ParameterError::invalid("stepSize");
    stepSize_ = h;
    return ParameterError::success();
  }

  const BeltParameters& belt() const { return belt_; }
  const Element& element(int e) const { return element_[e]; }
  double elementLength(int e) const { return length_[e]; }
  int pulleyCount() const { return pulleys_.count(); }
  const PulleyParameters& pulley(int p) const { return pulleys_.pulley(p); }
  const Pair& pair(int e, int p) const { return pair_[e][p]; }
  bool paired(int e, int p) const { return paired_[e][p]; }
  int nextNode(int e) const { return e == NE - 1 ? 0 : e + 1; }
  void setInput(const BeltDriveInput<NP>& input) { pulleys_.setInput(input); }
  double driveTorque(int p) const { return reactions_.driveTorque[p]; }
  double beltTorque(int p) const { return reactions_.beltTorque[p]; }
  Vector2 hubForce(int p) const { return reactions_.hubForce[p]; }
  double beltLength() const { return beltLength_; }
  double appliedTorque(int p, double t) const { return pulleys_.appliedTorque(p, t); }
  ArmForce armState(int p, const Vector& q, const Vector& v) const {
    return pulleys_.armState(p, LayoutVector(q.template head<Layout::kSize>()),
                             LayoutVector(v.template head<Layout::kSize>()), phase_.mode);
  }
  const ArmGeometry& armGeometryOf(int p) const { return pulleys_.armGeometryOf(p); }
  // Node i's place on the path: the mesh length from node 0 to it, m.
  double station(int node) const {
    double s = 0.0;
    for (int e = 0; e < node && e < NE; ++e) s += length_[e];
    return s;
  }

  // Element e's coordinates and its nodes' material coordinates (the closing element's end
  // carries p_0 plus the belt's reference length; rates and accelerations carry no offset).
  Vector8 gatherElement(const Vector& x, int e) const {
    return Layout::gather(LayoutVector(x.template head<Layout::kSize>()), e, nextNode(e));
  }
  Vector2 gatherMaterial(const Vector& x, int e, bool position) const {
    const int b = nextNode(e);
    return Vector2(x(materialDof(e)), x(materialDof(b)) + (position && b == 0 ? beltLength_ : 0.0));
  }
  // Element e's material rates q_dot + w_A T_A q + w_B T_B q.
  Vector8 materialRates(const Vector& q, const Vector& v, int e) const {
    const Kinematics k = kinematics(q, v, e);
    return k.rates;
  }
  // The axial force of the material at mesh point x of element e, strain-rate damping included:
  // EA (|r'|/lambda - 1 - eps0) + the damping of the material element at the material rates.
  double axialForce(const Vector& q, const Vector& v, int e, double x) const {
    Element::Section s;
    return materialSection(q, v, e, x, s) == Status::kOk ? s.axialForce : NAN;
  }
  // The section at mesh point x of element e with the material's velocity (section at the material
  // rates) and the material's axial force, as axialForce.
  Status materialSection(const Vector& q, const Vector& v, int e, double x, typename Element::Section& s) const {
    const Kinematics k = kinematics(q, v, e);
    const Status st = element_[e].section(k.q, k.rates, x, s);
    if (st == Status::kOk) s.axialForce = s.axialForce + belt_.element.EA * s.slope.norm() * (1.0 / k.lambda - 1.0);
    return st;
  }
  CircleState circleState(const Vector& q, const Vector& v, int p) const {
    return pulleys_.state(LayoutVector(q.template head<Layout::kSize>()), LayoutVector(v.template head<Layout::kSize>()),
                          p);
  }

  // ---- the stepper's interface (system_interface.hpp) ------------------------------------------
  Status residual(const IterationPoint<Vector>& point, Vector& r) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    const LayoutVector qL = q.template head<Layout::kSize>(), vL = v.template head<Layout::kSize>(),
                       aL = a.template head<Layout::kSize>();
    LayoutVector rL = LayoutVector::Zero();
    double rp[NE] = {};
    const bool isStatic = phase_.isStatic();
    // Static: the stabilizer s M (x - x_previous) enters as the inertia of the acceleration s (x - x_previous).
    const Vector stabilized = isStatic ? Vector(phase_.stabilizer * (q - staticPrevious_)) : Vector::Zero();
    // At the last post-Newton step's state (the fixed-cost passes' residuals) its element and pair
    // kinematics serve again: the same inputs, the same bits.
    const bool atPostNewtonState = pnsKinematicsValid_ && q == pnsQ_ && v == pnsV_;
    if (!atPostNewtonState) {
      pnsKinematicsValid_ = false;
      for (int e = 0; e < NE; ++e) current_[e] = kinematics(q, v, e);
    }
    for (int e = 0; e < NE; ++e) {
      Vector10 rows;
      const Status s = elementRows(current_[e], isStatic ? stabilized : a, e, false, rows, nullptr, point);
      if (s != Status::kOk) return s;
      scatterRows(rows, e, rL, rp);
    }
    for (int p = 0; p < NP; ++p) {
      reactions_.beltTorque[p] = 0.0;
      reactions_.hubForce[p] = Vector2::Zero();
      if (p >= pulleyCount()) continue;
      const CircleState cs = pulleys_.state(qL, vL, p);
      for (int e = 0; e < NE; ++e) {
        Pair& pair = pair_[e][p];
        if (!paired_[e][p]) continue;
        if (decideInNewton_ ? !pair.candidate(kDecisionMargin) : !pair.anyFlagged()) continue;
        const Kinematics& k = current_[e];
        const PairKinematics<NCS>* known = atPostNewtonState && pnsCircle_[e] == p ? &pnsKinematics_[e] : nullptr;
        PairForces f;
        const Status st = decideInNewton_ ? pair.evaluateDecided(k.q, k.rates, shapeTable_[e], cs, f, known)
                                          : pair.evaluateNewton(k.q, k.rates, shapeTable_[e], cs, f, nullptr, known);
        if (st != Status::kOk) return st;
        if (f.activeSegments == 0) continue;
        Vector10 rows;
        rows.template head<8>() = f.element;
        for (int n = 0; n < 2; ++n) rows(8 + n) = -f.element.dot(k.nodalSlopeRates[n]) / k.lambda;
        scatterRows(rows, e, rL, rp);
        rL(pulleyDof(p, 0)) += f.circleForce(0);
        rL(pulleyDof(p, 1)) += f.circleForce(1);
        rL(pulleyDof(p, 2)) += f.circleTorque;
        reactions_.beltTorque[p] -= f.circleTorque;
        reactions_.hubForce[p] -= f.circleForce;
      }
      pulleys_.addResidual(p, qL, vL, aL, point.time, phase_, rL);
    }
    Vector2 nodeForce[NE];
    for (int i = 0; i < NE; ++i) nodeForce[i] = Vector2(rL(4 * i), rL(4 * i + 1));
    const IterationPoint<LayoutVector> pointL{&qL, &vL, &aL, point.time, point.coefficients};
    prescribed().applyToResidual(pointL, phase_, reactions_, rL);
    // Every node on its start tangent t: the tangential row becomes m t.r_dot / c_v (velocity
    // level, scaled like the prescribed rows; static: m t.(r - r_lock)), the second row the normal
    // force n.(r_x, r_y).
    for (int i = 0; i < NE; ++i) {
      const Vector2& t = tangent_[i];
      if (isStatic)
        rL(4 * i) = lumpedNodeMass_ * (t(0) * (qL(4 * i) - phase_.locks(4 * i)) + t(1) * (qL(4 * i + 1) - phase_.locks(4 * i + 1)));
      else
        rL(4 * i) = lumpedNodeMass_ * (t(0) * vL(4 * i) + t(1) * vL(4 * i + 1)) / point.coefficients->dampingFactor;
      rL(4 * i + 1) = -t(1) * nodeForce[i](0) + t(0) * nodeForce[i](1);
    }
    r.template head<Layout::kSize>() = rL;
    for (int i = 0; i < NE; ++i) r(materialDof(i)) = rp[i];
    if (isStatic) r(materialDof(0)) = lumpedNodeMass_ * (q(materialDof(0)) - staticLocks_(materialDof(0)));
    return Status::kOk;
  }

  Status factorize(const IterationPoint<Vector>& point) {
    bool built = false;
    return factorize(point, MatrixUpdate::kFull, built);
  }
  Status factorize(const IterationPoint<Vector>& given, MatrixUpdate, bool& built) {
    built = true;
    const bool isStatic = phase_.isStatic();
    // Static: the stabilizer in the mass's place, no damping (static_phase.hpp).
    IntegratorCoefficients staticCoefficients;
    staticCoefficients.massFactor = phase_.stabilizer;
    staticCoefficients.stiffnessFactor = 1.0;
    staticCoefficients.dampingFactor = 0.0;
    const Vector stabilized = isStatic ? Vector(phase_.stabilizer * (*given.q - staticPrevious_)) : Vector::Zero();
    const IterationPoint<Vector> point{given.q, given.v, isStatic ? &stabilized : given.a, given.time,
                                       isStatic ? &staticCoefficients : given.coefficients};
    matrix_.beginBuild(prescribed(), tangent_);
    Status s = assembleElements(point, 0, NE);
    if (s != Status::kOk) return s;
    assemblePulleys(point);
    return matrix_.factorize(point.coefficients->stiffnessFactor);
  }

  // The fixed-cost stepping's refresh (fixed_cost_stepper.hpp, docs/model_element.md §2.11): the whole
  // matrix built again in the second storage while the first one solves, the elements
  // [first, last) of one step at that step's accepted state, each chain block eliminated as soon
  // as both its elements are in; finishRefresh adds the pulleys, completes the factorization and
  // makes it the one that solves. Dynamic mode only. Its factorization leaves the replaced rows'
  // unknowns out of the elimination (the compact border, bordered_block_tridiagonal.hpp).
  static constexpr bool kSwitchUpdates = false;  // the pairs never change: no switch columns
  void beginRefresh() { matrix_.beginRefresh(prescribed(), tangent_); }
  Status refreshSlice(const IterationPoint<Vector>& point, int first, int last, int /*pairBudget*/ = 0) {
    matrix_.assembleInRefresh();
    const Status s = assembleElements(point, first, last);
    return s == Status::kOk ? matrix_.eliminateCompleteBlocks(last) : s;
  }
  Status finishRefresh(const IterationPoint<Vector>& point) {
    matrix_.assembleInRefresh();
    if (!matrix_.refreshEliminated()) return Status::kInvalidParameter;
    assemblePulleys(point);
    return matrix_.finishRefresh(point.coefficients->stiffnessFactor);
  }
  // The fixed-cost stepping's update between its post-Newton passes (fixed_cost_stepper.hpp,
  // docs/model_element.md §2.11): the pairs whose committed contact or stick/slip states differ from those
  // the solving matrix holds are evaluated again at the point, at most maxPairs of them (from
  // element 0 on), their change goes into the solving matrix, and its chain is eliminated again
  // from the first block they touch. `updated`: pairs evaluated; `left`: changed pairs over the
  // budget (they wait for the next update or the refresh).
  Status updateSwitchedPairs(const IterationPoint<Vector>& point, int maxPairs, int& updated, int& left) {
    updated = 0;
    left = 0;
    int firstBlock = NE - 2;  // chain block k is node k + 1; node 0 is the border's
    matrix_.beginUpdate();
    const LayoutVector qL = point.q->template head<Layout::kSize>(), vL = point.v->template head<Layout::kSize>();
    for (int e = 0; e < NE; ++e) {
      const int p = wrappedCircle(e);
      if (p < 0) continue;
      const std::uint64_t signature = pair_[e][p].jacobianSignature();
      if (signature == matrix_.solvingSignature(e)) continue;
      if (updated >= maxPairs) {
        ++left;
        continue;
      }
      typename NewtonMatrix::PairBlock block = NewtonMatrix::PairBlock::Zero();
      bool in = false;
      const Status s = pairBlock(kinematics(*point.q, *point.v, e), e, p, pulleys_.state(qL, vL, p),
                                 *point.coefficients, block, in);
      if (s != Status::kOk) return s;
      // The new block less the one the solving matrix holds (fixed size, on the stack).
      typename NewtonMatrix::PairBlock change = block;
      if (const typename NewtonMatrix::PairBlock* held = matrix_.solvingBlock(e)) change -= *held;
      addPairBlock(change, e, p);
      matrix_.recordPair(e, in ? &block : nullptr, signature);
      if (updated++ == 0) firstBlock = e == 0 ? 0 : e - 1;  // the lowest element comes first
    }
    return updated == 0 ? Status::kOk : matrix_.refactorizeFrom(firstBlock);
  }
  // Reference stepping: the compact border in its factorization (EulerianNewtonMatrix).
  void setCompactBorder(bool compact) { matrix_.setCompactBorder(compact); }
  // Decides every segment's contact and stick/slip state at the iterate in the residual (the
  // fixed-cost stepping's later iterations) instead of keeping the committed ones.
  void setDecideInNewton(bool decide) { decideInNewton_ = decide; }

  Status solve(const Vector& r, Vector& delta) const { return matrix_.solve(r, delta); }

  // Carries the material's contact histories by what crossed each segment in the last accepted
  // step (its mesh speed w at the segment's start times the step), then D0 := D.
  void beginStep() {
    const int segments = contact_.segmentCount;
    // A segment's history belongs to the material at its start (its anchor and x_c are the start
    // point's, segment_geometry.hpp): samples at the segments' starts, each one's pitch to the next
    // (its own segment, L/segments) and the distance its material came in the last accepted step.
    double pitch[NE * NCS] = {}, travel[NE * NCS] = {};
    const double carried = phase_.isStatic() ? 0.0 : stepSize_;  // s
    for (int e = 0; e < NE; ++e)
      for (int i = 0; i < segments; ++i) {
        const double x = static_cast<double>(i) / segments;  // of the element
        const int j = e * segments + i;
        travel[j] = carried * ((1.0 - x) * lastMeshSpeed_[e][0] + x * lastMeshSpeed_[e][1]);
        pitch[j] = length_[e] / segments;
      }
    transportRefused_ = !(phase_.isStatic() || stepSize_ > 0.0) || !carried_.carry(pair_, pulleyCount(), segments, pitch, travel);
    pulleys_.beginStep();
  }
  void rejectStep() {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair_[e][p].rejectStep();
    pulleys_.rejectStep();
  }

  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    pnsKinematicsValid_ = false;
    if (transportRefused_) return Status::kInvalidParameter;
    Status worst = Status::kOk;
    const LayoutVector qL = point.q->template head<Layout::kSize>(), vL = point.v->template head<Layout::kSize>();
    pulleys_.postNewtonStep(qL, vL, phase_.mode, error);
    CircleState circle[NP];
    for (int p = 0; p < pulleyCount(); ++p) circle[p] = pulleys_.state(qL, vL, p);
    for (int e = 0; e < NE; ++e) {
      const Kinematics& k = current_[e] = kinematics(*point.q, *point.v, e);
      lastMeshSpeed_[e][0] = k.meshSpeed[0];
      lastMeshSpeed_[e][1] = k.meshSpeed[1];
      pnsCircle_[e] = -1;
      for (int p = 0; p < pulleyCount(); ++p) {
        if (!paired_[e][p] || worst == Status::kNonFiniteValue) continue;  // the mesh speeds still go on
        double pairError = 0.0;
        const PostNewtonKeep<NCS> keep{carried_.contactCoordinates(e, p), &pnsKinematics_[e]};
        const Status s = pair_[e][p].postNewtonStep(k.q, k.rates, shapeTable_[e], circle[p], pairError, nullptr, keep);
        pnsCircle_[e] = p;
        if (s != Status::kOk) worst = s;
        if (pairError > error) error = pairError;
      }
    }
    pnsQ_ = *point.q;
    pnsV_ = *point.v;
    pnsKinematicsValid_ = worst != Status::kNonFiniteValue;
    return worst;
  }

  // ---- matrix assembly in system coordinates (also PulleyBodies::addMatrix's target) ----------
  // An entry of the Newton matrix, into the rows the matrix keeps along the nodes' start tangents
  // (EulerianNewtonMatrix::addEntry).
  void addEntry(int row, int col, double value) { matrix_.addEntry(row, col, value, tangent_); }

 private:
  // One element's kinematics at a state.
  using Kinematics = EulerianElementKinematics;
  Kinematics kinematics(const Vector& q, const Vector& v, int e) const {
    return Kinematics::at(e, gatherElement(q, e), gatherElement(v, e), gatherMaterial(q, e, true),
                          gatherMaterial(v, e, false), length_[e], material_[e]);
  }

  // The element's own rows (inertia, elastic forces of its material, gravity, strain-rate damping
  // on the material) in the order (q 8, pA, pB) and, when asked, c_a dE/da + c_q dE/dq + c_v dE/dv.
  Status elementRows(const Kinematics& k, const Vector& acceleration, int e, bool jacobian, Vector10& rows,
                     Matrix10* matrix, const IterationPoint<Vector>& point) const {
    if (!(k.lambda > 0.0)) return isFinite(k.lambda) ? Status::kDegenerateState : Status::kNonFiniteValue;
    EulerianFlowTerms inertia;
    const Vector8 qDDot = gatherElement(acceleration, e);
    const Vector2 pDDot = gatherMaterial(acceleration, e, false);
    Status s = jacobian ? flow_[e].evaluate(k.q, k.v, qDDot, k.p, k.pDot, pDDot, inertia)
                        : flow_[e].force(k.q, k.v, qDDot, k.p, k.pDot, pDDot, inertia.force);
    if (s != Status::kOk) return s;
    Vector10 elastic;
    Matrix10 elasticStiffness;
    s = cable_[e].elasticForceAndStiffness(k.q, k.p(0), k.p(1), elastic, jacobian ? &elasticStiffness : nullptr);
    if (s != Status::kOk) return s;
    // Strain-rate damping: the viscous part of the material element's internal force at the
    // material rates.
    Vector8 damped;
    Matrix8 dampedStiffness, damping;
    if (jacobian)
      s = element_[e].viscousForceAndJacobian(k.q, k.rates, damped, dampedStiffness, damping);
    else
      s = element_[e].viscousForce(k.q, k.rates, damped);
    if (s != Status::kOk) return s;
    const Vector8 gravity = (phase_.isStatic() ? phase_.loadFactor : 1.0) * element_[e].gravityForce();
    const double invL = 1.0 / length_[e];
    const double sign[2] = {-invL, invL};  // d lambda / d p_a
    rows = inertia.force + elastic;
    rows.template head<8>() += damped - k.lambda * gravity;
    const double potential = gravity.dot(k.q);  // -dV/dlambda
    for (int n = 0; n < 2; ++n)
      rows(8 + n) += -damped.dot(k.nodalSlopeRates[n]) / k.lambda - sign[n] * potential;
    if (!jacobian) return Status::kOk;
    const IntegratorCoefficients& c = *point.coefficients;
    Matrix10& m = *matrix;
    m = c.massFactor * inertia.byAcceleration + c.stiffnessFactor * (inertia.byPosition + elasticStiffness) +
        c.dampingFactor * inertia.byVelocity;
    for (int n = 0; n < 2; ++n) {
      m.template block<8, 1>(0, 8 + n) -= c.stiffnessFactor * sign[n] * gravity;
      m.template block<1, 8>(8 + n, 0) -= c.stiffnessFactor * sign[n] * gravity.transpose();
    }
    Eigen::Matrix<double, 10, 10> dampingMatrix;
    materialForceMatrix<0>(k, nodalSlope_[e], length_[e], damped, dampedStiffness, damping,
                           c.stiffnessFactor, c.dampingFactor, dampingMatrix);
    m += dampingMatrix;
    return Status::kOk;
  }

  // Friction values per segment of element e: the bristle stiffness and the velocity penalty scale
  // with the segment's area like k_c (mu_v = 2 zeta sqrt(mu_k m_seg) too, both in proportion).
  FrictionParameters scaledFriction(const FrictionParameters& friction, int e) const {
    FrictionParameters own = friction;
    own.bristleStiffness *= contactScale_[e];
    own.velocityPenalty *= contactScale_[e];
    return own;
  }

  void holdNodes(const Vector& x) {
    pnsKinematicsValid_ = false;  // the material coordinates' wrap changes with the belt's length
    beltLength_ = 0.0;
    for (int i = 0; i < NE; ++i) {
      const Vector2 slope(x(4 * i + 2), x(4 * i + 3));
      tangent_[i] = slope / slope.norm();
      beltLength_ += length_[i];
    }
  }
  void resetTransport() {
    carried_.clear();
    for (int e = 0; e < NE; ++e) lastMeshSpeed_[e][0] = lastMeshSpeed_[e][1] = 0.0;
    transportRefused_ = false;
  }

  void scatterRows(const Vector10& rows, int e, LayoutVector& rL, double* rp) const {
    Layout::scatter(Vector8(rows.template head<8>()), e, nextNode(e), rL);
    rp[e] += rows(8);
    rp[nextNode(e)] += rows(9);
  }

  void localIndices(int e, int* index) const {
    const int b = nextNode(e);
    for (int i = 0; i < 4; ++i) {
      index[i] = 4 * e + i;
      index[4 + i] = 4 * b + i;
    }
    index[8] = materialDof(e);
    index[9] = materialDof(b);
  }
  // Elements [first, last) and their contact pairs: c_a dE/da + c_q dE/dq + c_v dE/dv.
  Status assembleElements(const IterationPoint<Vector>& point, int first, int last) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const IntegratorCoefficients& c = *point.coefficients;
    const LayoutVector qL = q.template head<Layout::kSize>(), vL = v.template head<Layout::kSize>();
    CircleState circles[NP];
    for (int p = 0; p < pulleyCount(); ++p) circles[p] = pulleys_.state(qL, vL, p);
    for (int e = first; e < last; ++e) {
      const Kinematics k = kinematics(q, v, e);
      Vector10 rows;
      Matrix10 m;
      Status s = elementRows(k, *point.a, e, true, rows, &m, point);
      if (s != Status::kOk) return s;
      int index[13];
      localIndices(e, index);
      for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j) addEntry(index[i], index[j], m(i, j));
      const int p = wrappedCircle(e);
      if (p < 0) continue;
      typename NewtonMatrix::PairBlock block;
      bool in = false;
      s = pairBlock(k, e, p, circles[p], c, block, in);
      if (s != Status::kOk) return s;
      if (in) addPairBlock(block, e, p);
      matrix_.recordPair(e, in ? &block : nullptr, pair_[e][p].jacobianSignature());
    }
    return Status::kOk;
  }
  // Pair (e, p)'s block c_q dF/dx + c_v dF/dv in the order (q 8, the circle's x, y, phi, pA, pB);
  // `in`: whether any segment is flagged (else no block, the pair adds nothing).
  Status pairBlock(const Kinematics& k, int e, int p, const CircleState& circle, const IntegratorCoefficients& c,
                   typename NewtonMatrix::PairBlock& block, bool& in) const {
    const Pair& pair = pair_[e][p];
    in = pair.anyFlagged();
    if (!in) return Status::kOk;
    Matrix11 ks, ds;
    Status s = contactPairJacobian(pair, k.q, k.rates, shapeTable_[e], circle, ks, ds);
    if (s != Status::kOk) return s;
    PairForces f;
    s = pair.evaluateNewton(k.q, k.rates, shapeTable_[e], circle, f);
    if (s != Status::kOk) return s;
    Eigen::Matrix<double, 11, 1> forces;
    forces << f.element, f.circleForce(0), f.circleForce(1), f.circleTorque;
    materialForceMatrix<3>(k, nodalSlope_[e], length_[e], forces, ks, ds, c.stiffnessFactor, c.dampingFactor, block);
    return Status::kOk;
  }
  void addPairBlock(const typename NewtonMatrix::PairBlock& block, int e, int p) {
    int index[13];
    localIndices(e, index);
    const int pA = index[8], pB = index[9];
    index[8] = pulleyDof(p, 0);  // q 0..7, the circle, then pA, pB
    index[9] = pulleyDof(p, 1);
    index[10] = pulleyDof(p, 2);
    index[11] = pA;
    index[12] = pB;
    for (int i = 0; i < 13; ++i)
      for (int j = 0; j < 13; ++j) addEntry(index[i], index[j], block(i, j));
  }
  // The circle element e wraps among circles 0..before-1 (-1: none).
  int wrappedCircle(int e, int before = NP) const {
    for (int p = 0; p < pulleyCount() && p < before; ++p)
      if (paired_[e][p]) return p;
    return -1;
  }
  // The pulleys' own blocks (the border's corner).
  void assemblePulleys(const IterationPoint<Vector>& point) {
    const LayoutVector qL = point.q->template head<Layout::kSize>(), vL = point.v->template head<Layout::kSize>();
    const IntegratorCoefficients& c = *point.coefficients;
    for (int p = 0; p < pulleyCount(); ++p)
      pulleys_.addMatrix(p, qL, vL, c.massFactor, c.stiffnessFactor, c.dampingFactor, phase_.mode, *this);
  }
  PrescribedRows<NE, NP> prescribed() const { return {pulleys_, belt_, phase_.mode, lumpedNodeMass_}; }

  BeltParameters belt_;
  ContactParameters contact_;
  double length_[NE] = {};  // mesh lengths, m
  double contactScale_[NE] = {};  // element length over setUp's contactLength
  EulerianCable2D cable_[NE];
  Element element_[NE];
  EulerianFlowInertia flow_[NE];
  MaterialVelocity material_[NE];
  Matrix8 nodalSlope_[NE][2];
  double lumpedNodeMass_ = 1.0;
  PulleyBodies<NE, NP> pulleys_;
  Pair pair_[NE][NP];
  SegmentShapeTable<NCS> shapeTable_[NE];
  StaticPhase<LayoutVector> phase_;
  Vector staticPrevious_ = Vector::Zero();  // the static solve's previous load step and locks, all unknowns
  Vector staticLocks_ = Vector::Zero();
  PulleyReactions<NP> reactions_;
  NewtonMatrix matrix_;  // its storages and the rows it keeps; this class gives its entries
  Vector2 tangent_[NE];  // every node's start tangent (unit): its velocity row's direction
  double beltLength_ = 0.0;  // the belt's reference length, m
  double stepSize_ = 0.0;  // s; 0 until setStepSize
  Kinematics current_[NE];  // every element's kinematics at the last residual's or post-Newton step's state
  // What the last post-Newton step computed, at (pnsQ_, pnsV_): current_ and each element's pair
  // kinematics with circle pnsCircle_[e] (-1: none); valid until a residual at another state.
  PairKinematics<NCS> pnsKinematics_[NE];
  int pnsCircle_[NE] = {};
  Vector pnsQ_ = Vector::Zero(), pnsV_ = Vector::Zero();
  bool pnsKinematicsValid_ = false;
  CarriedHistories<NE, NP, NCS> carried_;  // x_c of the material at the segments, and the transport
  double lastMeshSpeed_[NE][2] = {};             // w at each element's nodes at the last post-Newton step, m/s
  bool paired_[NE][NP] = {};                      // element e wraps circle p (fixed at the start)
  bool transportRefused_ = false;
  bool decideInNewton_ = false;
  static constexpr double kDecisionMargin = 1e-3;  // m: pairs within it at the start of the step are decided (belt_drive.hpp)
};

}  // namespace beltsim
