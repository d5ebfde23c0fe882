// A closed belt drive on the eulerian mesh (docs/model_element.md §2.11): the pulleys and pairs of
// every drive (pulleys_and_pairs.hpp) on NE elements whose nodes stay where they started on the
// belt's path (eulerian_mesh.hpp), with its Newton matrix (eulerian_newton_matrix.hpp), whose
// entries this class computes. The System of the reference, static and fixed-cost steppers.
//
// Every node keeps its place on the path: its velocity along its start tangent is 0 (a velocity-
// level row in place of its tangential force row; the normal force row stays), so no slide of the
// mesh is left to fix. An element is paired with at most one pulley, for the whole run. The
// contact histories are carried with the material at each step's start by the distance it crossed
// the mesh in the last step (anchor_transport.hpp), within the step by the iterate's mesh speed
// (carried_anchor.hpp).
//
// Static solve (mode kStatic, docs/model_element.md §2.11): no inertia, gravity at the load
// factor, the stabilizer s M (x - x_previous) on (q, p), every node held at its locked position
// along its start tangent, p_0 held at its lock (the frictionless belt could otherwise slide
// through the mesh) and the pulleys' rotations locked (prescribed_rows.hpp).
//
// Moving stations (setUpMovingStations; docs/model_moving_stations.md): when pulley centres move (a
// tensioner arm, a pulley on its support springs), every node follows its station sigma_i(c) on
// the path along its start tangent t_i, each part of the path is stretched by kappa_j(c) from its
// drawn length, and the moving centres' rows take the generalized forces of both: the parts'
// kappa rows times d kappa_j / d c, and the nodes' tangential forces times g_i = (dP_i / dc)^T t_i.
// Those rows and their Newton entries are EulerianStationMotion's (eulerian_station_motion.hpp);
// this class gives it the centres and its own rows, and takes the stretches into its mesh.
#pragma once
#include <algorithm>

#include "beltsim/contact/carried_histories.hpp"
#include "beltsim/contact/contact_jacobian.hpp"
#include "beltsim/system/eulerian_mesh.hpp"
#include "beltsim/system/eulerian_newton_matrix.hpp"
#include "beltsim/system/eulerian_station_motion.hpp"
#include "beltsim/system/pulleys_and_pairs.hpp"

namespace beltsim {

template <int NE, int NP, int NCS>
class EulerianBeltDrive : public PulleysAndPairs<NE, NP, NCS> {
  using Base = PulleysAndPairs<NE, NP, NCS>;
  using Layout = DriveLayout<NE, NP>;

 public:
  using Mesh = EulerianMesh<NE, NP, NCS>;
  using Element = typename Mesh::Element;
  static constexpr int kLayoutSize = Layout::kSize;
  static constexpr int kSize = Mesh::kSize;
  using Vector = typename Mesh::Vector;
  using LayoutVector = typename Layout::Vector;
  using Vector10 = typename Mesh::Vector10;
  using Matrix10 = typename Mesh::Matrix10;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;
  using Pair = ContactPair<NCS>;
  using NewtonMatrix = EulerianNewtonMatrix<NE, NP>;
  static constexpr int kBorder = NewtonMatrix::kBorder;  // node 0 with p_0, the pulleys
  static constexpr int kNodes = NE;  // the layout's node NE is unused (the belt closes on node 0)
  static constexpr int materialDof(int node) { return Mesh::materialDof(node); }
  using Base::pair;
  using Base::pulleyCount;
  using Base::pulleyDof;

  EulerianBeltDrive() = default;
  // A copy's pairs read its own carried anchors (ContactPair::carryWith), not the original's: every
  // member is copied (copyOwnStateFrom), then linked (test: ACopyStepsAsTheOriginal...).
  EulerianBeltDrive(const EulerianBeltDrive& other) : Base(other) { copyOwnStateFrom(other); }
  EulerianBeltDrive& operator=(const EulerianBeltDrive& other) {
    if (this == &other) return *this;
    Base::operator=(other);
    copyOwnStateFrom(other);
    return *this;
  }

  // ---- set-up ---------------------------------------------------------------------------------
  // A closed belt of NE elements of mesh lengths elementLength[e] (graded meshes:
  // docs/model_element.md §2.11); reference curvature 0. The contact's per-segment values (k_c,
  // d_c, mu_k, mu_v: a value per unit area times a segment's area, paper_parameters.hpp) are those
  // of an element of length contactLength: each element's pairs take them in proportion to its own
  // length.
  ParameterError setUp(const BeltParameters& belt, const double (&elementLength)[NE], const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact, double contactLength) {
    pnsKinematicsValid_ = false;
    if (!belt.closed) return ParameterError::invalid("belt.closed");
    if (!(contactLength > 0.0 && isFinite(contactLength))) return ParameterError::invalid("contactLength");
    ParameterError e = Base::setUpPulleys(belt, circles, pulleyCount);
    if (!e.ok()) return e;
    for (int k = 0; k < NE; ++k) {
      e = mesh_.setUpElement(k, belt.element, elementLength[k], elementLength[k] / contactLength,
                             contact.segmentCount);
      if (!e.ok()) return e;
      e = Base::setUpPairs(k, contact, elementLength[k], mesh_.contactScale(k));
      if (!e.ok()) return e;
      for (int p = 0; p < NP; ++p) pair(k, p).carryWith(carried_.anchor(k, p));
    }
    Base::recordElementLength(elementLength[0]);
    Base::setLumpedNodeMass(mesh_.lumpedNodeMass());  // the shortest element's
    return ParameterError::success();
  }
  // Uniform elements of mesh length elementLength.
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact) {
    double lengths[NE];
    for (double& l : lengths) l = elementLength;
    return setUp(belt, lengths, circles, pulleyCount, contact, elementLength);
  }

  // Stations that move with the pulleys whose centres move (docs/model_moving_stations.md): the path
  // as drawn and the elements of each of its parts, as eulerianStations gave them; after setUp.
  // Without it, or with no moving centre, every node stays where it started.
  // A build without moving stations (BELTSIM_MOVING_STATIONS = 0, the Cortex-M7 images) refuses a
  // moving centre here ("pulley.kind").
  ParameterError setUpMovingStations(const BeltPath<NP>& drawn, const int (&elementsInPart)[2 * NP]) {
    if (drawn.pulleyCount != pulleyCount()) return ParameterError::invalid("pulleyCount");
    if (!kMovingStationsBuilt) {
      for (int p = 0; p < pulleyCount(); ++p)
        if (movingCentre(Base::pulley(p).kind)) return ParameterError::invalid("pulley.kind");
      return ParameterError::success();
    }
    double lengths[NE];
    for (int e = 0; e < NE; ++e) lengths[e] = mesh_.elementLength(e);
    PulleyKind kinds[NP] = {};
    for (int p = 0; p < pulleyCount(); ++p) kinds[p] = Base::pulley(p).kind;
    const ParameterError error = motion_.setUp(drawn, elementsInPart, lengths, kinds, pulleyCount());
    if (!error.ok()) return error;
    mesh_.useStretches(motion_.anyMoving());
    pnsKinematicsValid_ = false;
    return ParameterError::success();
  }
  const MovingStations<NE, NP>& stations() const { return motion_.stations(); }

  // Starts from a full state at rest (positions with p_{i+1} - p_i of about L_i, e.g. the static
  // solve's): every node held on its start tangent; an element is paired with a pulley for the
  // whole run if both its nodes and its middle lie within 1 mm of the pulley's belt centre-line
  // radius; the paired elements' segments in contact stick where they are
  // (ContactPair::initializeHistory).
  Status startFrom(const Vector& x) {
    if (!x.allFinite()) return Status::kNonFiniteValue;
    const Vector zero = Vector::Zero();
    initializeContactHistory(x, zero);
    return Status::kOk;
  }
  // The same at any state (the static solve's start and end; a non-finite state pairs nothing, and
  // the residual reports it).
  void initializeContactHistory(const Vector& x, const Vector& v) {
    pnsKinematicsValid_ = false;  // the material coordinates' wrap changes with the belt's length
    mesh_.holdNodes(x);
    if (moving()) (void)updateStations(x, v, nullptr);  // a refused state pairs nothing below
    const LayoutVector qL = x.template head<Layout::kSize>(), vL = v.template head<Layout::kSize>();
    Base::pulleyBodies().anchorArms(qL, vL, Base::mode());
    for (int p = 0; p < pulleyCount(); ++p) {
      const PulleyParameters& c = Base::pulley(p);
      const double radius = beltPathCircle(c, Base::belt()).radius;
      const CircleState cs = Base::circleState(qL, vL, p);
      for (int e = 0; e < NE; ++e) {
        // The element as the pair sees it (stretched: the drawn element at q~).
        const Vector8 qe = moving() ? Vector8(mesh_.kinematics(x, v, e).q) : Mesh::gatherElement(x, e);
        Vector2 middle;
        bool on = mesh_.element(e).position(qe, 0.5 * mesh_.elementLength(e), middle) == Status::kOk;
        const Vector2 points[3] = {qe.template head<2>(), qe.template segment<2>(4), middle};
        for (const Vector2& r : points) on = on && std::fabs((r - cs.centre).norm() - radius) < 1e-3;
        paired_[e][p] = on && wrappedCircle(e, p) < 0;  // one pulley per element: one pair block each
        Pair& pair = this->pair(e, p);
        for (int i = 0; i < Base::contact().segmentCount; ++i) pair.setHistory(i, SegmentHistory{});
        if (on)
          pair.initializeHistory(qe, moving() ? Vector8(mesh_.kinematics(x, v, e).v) : Mesh::gatherElement(v, e),
                                 mesh_.elementLength(e), cs);
        pair.beginStep();
      }
    }
    carried_.clear();
    for (int e = 0; e < NE; ++e) lastMeshSpeed_[e][0] = lastMeshSpeed_[e][1] = 0.0;
    transportRefused_ = false;
    reopened_ = false;
  }

  // ---- controls beyond the shared ones (pulleys_and_pairs.hpp) ---------------------------------
  // The static solve's load (static_phase.hpp, static_equilibrium.hpp), on every unknown.
  void setStaticLoad(double loadFactor, double stabilizer, const Vector& previous, const Vector& locks) {
    Base::setStaticLoad(loadFactor, stabilizer, previous.template head<Layout::kSize>(),
                        locks.template head<Layout::kSize>());
    staticPrevious_ = previous;
    staticLocks_ = locks;
    if (moving()) {  // the stations at the locked centres: the nodes' static rows hold them there
      Vector2 centre[NP];
      for (int p = 0; p < NP; ++p)
        centre[p] = p < pulleyCount() ? Vector2(locks(pulleyDof(p, 0)), locks(pulleyDof(p, 1))) : Vector2::Zero();
      motion_.lockAt(centre);
    }
  }
  // Friction of every pair or of pulley `only`'s (PulleysAndPairs::setScaledFriction), per segment
  // of an element of setUp's contactLength.
  ParameterError setFriction(const FrictionParameters& friction, int only = -1) {
    return Base::setScaledFriction(friction, only, [this](int e) { return mesh_.contactScale(e); });
  }
  // The belt's axial stiffness EA (an injected belt_stiffness fault), checked for both parts of
  // every element before any is written.
  ParameterError setAxialStiffness(double EA) {
    const ParameterError e = mesh_.setAxialStiffness(EA);
    if (e.ok()) Base::recordAxialStiffness(EA);
    return e;
  }
  // The step size h (s) of the stepper: the histories are carried by the mesh speed times h at
  // each step's start. Until a positive h is given, every dynamic step faults (its post-Newton
  // step returns kInvalidParameter); the static solve carries nothing, by its mode.
  ParameterError setStepSize(double h) {
    if (!(isFinite(h) && h > 0.0)) return ParameterError::invalid("stepSize");
    stepSize_ = h;
    return ParameterError::success();
  }

  // ---- what it is and outputs ------------------------------------------------------------------
  const Mesh& mesh() const { return mesh_; }
  bool paired(int e, int p) const { return paired_[e][p]; }
  ArmForce armState(int p, const Vector& q, const Vector& v) const {
    return Base::armState(p, LayoutVector(q.template head<Layout::kSize>()),
                          LayoutVector(v.template head<Layout::kSize>()));
  }
  CircleState circleState(const Vector& q, const Vector& v, int p) const {
    return Base::circleState(LayoutVector(q.template head<Layout::kSize>()),
                             LayoutVector(v.template head<Layout::kSize>()), p);
  }
  // The axial force of the material at mesh point x of element e (EulerianMesh::materialSection).
  double axialForce(const Vector& q, const Vector& v, int e, double x) const {
    typename Mesh::Element::Section s;
    return mesh_.materialSection(q, v, e, x, s) == Status::kOk ? s.axialForce : NAN;
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
    const StaticPhase<LayoutVector>& phase = Base::phase();
    const bool isStatic = phase.isStatic();
    // Static: the stabilizer s M (x - x_previous) enters as the inertia of the acceleration s (x - x_previous).
    const Vector stabilized = isStatic ? Vector(phase.stabilizer * (q - staticPrevious_)) : Vector::Zero();
    // At the last post-Newton step's state (the fixed-cost passes' residuals) its element and pair
    // kinematics serve again: the same inputs, the same bits.
    const bool atPostNewtonState = pnsKinematicsValid_ && q == pnsQ_ && v == pnsV_;
    double kappaRows[2 * NP] = {};  // each part's generalized force on its stretch
    if (moving()) {
      const Status st = updateStations(q, v, &a);
      if (st != Status::kOk) return st;
    }
    if (!atPostNewtonState) {
      pnsKinematicsValid_ = false;
      for (int e = 0; e < NE; ++e) current_[e] = mesh_.kinematics(q, v, e);
    }
    for (int e = 0; e < NE; ++e) {
      Vector10 rows;
      const Status s = mesh_.elementRows(current_[e], isStatic ? stabilized : a, gravityFactor(), nullptr, rows, nullptr);
      if (s != Status::kOk) return s;
      if (moving()) {
        double kappaRow = 0.0;
        mesh_.scatterStretched(current_[e], rows, rL, rp, kappaRow);
        kappaRows[motion_.partOf(e)] += kappaRow;
      } else {
        Mesh::scatterRows(rows, e, rL, rp);
      }
    }
    const IterationPoint<LayoutVector> pointL{&qL, &vL, &aL, point.time, point.coefficients};
    const Status s = Base::addPulleyRows(pointL, rL, [&](int p, const CircleState& cs) {
      for (int e = 0; e < NE; ++e) {
        Pair& pair = this->pair(e, p);
        if (!paired_[e][p] || !Base::evaluates(pair)) continue;
        const Kinematics& k = current_[e];
        const PairKinematics<NCS>* known = atPostNewtonState && pnsCircle_[e] == p ? &pnsKinematics_[e] : nullptr;
        const SegmentShapeTable<NCS>& table = mesh_.shapeTable(e);
        carried_.setMeshSpeeds(e, k.meshSpeed[0], k.meshSpeed[1]);
        PairForces f;
        double potential = 0.0;  // moving stations: the pair's penalty energy (drawn segments)
        const Status st =
            moving() ? evaluateWithEnergy(pair, k, table, cs, known, f, potential)
                    : (Base::decidesInNewton() ? pair.evaluateDecided(k.q, k.rates, table, cs, f, known)
                                               : pair.evaluateNewton(k.q, k.rates, table, cs, f, nullptr, known));
        if (st != Status::kOk) return st;
        if (f.activeSegments == 0) continue;
        if (moving()) {
          // The contact's penalty energy is kappa times the drawn segments': d/d kappa adds it.
          kappaRows[motion_.partOf(e)] += potential;
          // The pair's values are those of the drawn segment: at kappa times its length, kappa times
          // its forces (docs/model_moving_stations.md).
          const double kappa = mesh_.stretch(e).kappa;
          f.element *= kappa;
          f.circleForce *= kappa;
          f.circleTorque *= kappa;
          double kappaRow = 0.0;
          mesh_.scatterStretched(k, Mesh::materialRows(k, f.element), rL, rp, kappaRow);
          kappaRows[motion_.partOf(e)] += kappaRow;
        } else {
          Mesh::scatterRows(Mesh::materialRows(k, f.element), e, rL, rp);
        }
        Base::addPairForces(p, f, rL);
      }
      return Status::kOk;
    });
    if (s != Status::kOk) return s;
    Vector2 nodeForce[NE];
    for (int i = 0; i < NE; ++i) nodeForce[i] = Vector2(rL(4 * i), rL(4 * i + 1));
    double stationMotion[NE];
    if (moving()) {
      Vector2 centreRate[NP];
      for (int m = 0; m < motion_.movingCount(); ++m) {
        const int p = motion_.movingPulley(m);
        centreRate[m] = Vector2(v(pulleyDof(p, 0)), v(pulleyDof(p, 1)));
      }
      motion_.addRows(centreRate, isStatic, mesh_.tangents(), nodeForce, kappaRows, rL, stationMotion);
    }
    Base::applyPrescribed(pointL, rL);
    mesh_.replaceNodeRows(qL, vL, isStatic ? &phase.locks : nullptr, isStatic ? 0.0 : point.coefficients->dampingFactor,
                          Base::lumpedNodeMass(), nodeForce, rL, moving() ? stationMotion : nullptr);
    r.template head<Layout::kSize>() = rL;
    for (int i = 0; i < NE; ++i) r(materialDof(i)) = rp[i];
    if (isStatic) r(materialDof(0)) = Base::lumpedNodeMass() * (q(materialDof(0)) - staticLocks_(materialDof(0)));
    return Status::kOk;
  }

  Status factorize(const IterationPoint<Vector>& point) {
    bool built = false;
    return factorize(point, MatrixUpdate::kFull, built);
  }
  Status factorize(const IterationPoint<Vector>& given, MatrixUpdate, bool& built) {
    built = true;
    const bool isStatic = Base::phase().isStatic();
    // Static: the stabilizer in the mass's place, no damping (static_phase.hpp).
    IntegratorCoefficients staticCoefficients;
    staticCoefficients.massFactor = Base::phase().stabilizer;
    staticCoefficients.stiffnessFactor = 1.0;
    staticCoefficients.dampingFactor = 0.0;
    const Vector stabilized =
        isStatic ? Vector(Base::phase().stabilizer * (*given.q - staticPrevious_)) : Vector::Zero();
    const IterationPoint<Vector> point{given.q, given.v, isStatic ? &stabilized : given.a, given.time,
                                       isStatic ? &staticCoefficients : given.coefficients};
    matrix_.beginBuild(Base::prescribed(), mesh_.tangents());
    motion_.beginAssembly();
    Status s = assembleElements(point, 0, NE);
    if (s != Status::kOk) return s;
    assemblePulleys(point);
    return matrix_.factorize(point.coefficients->stiffnessFactor);
  }

  // The fixed-cost stepping's refresh (fixed_cost_stepper.hpp, docs/model_element.md §2.11): the
  // whole matrix built again in the second storage while the first one solves, the elements
  // [first, last) of one step at that step's accepted state, each chain block eliminated as soon
  // as both its elements are in; finishRefresh adds the pulleys, completes the factorization and
  // makes it the one that solves. Dynamic mode only. Its factorization leaves the replaced rows'
  // unknowns out of the elimination (the compact border, bordered_block_tridiagonal.hpp).
  static constexpr bool kSwitchUpdates = false;  // the pairs never change: no switch columns
  void beginRefresh() {
    matrix_.beginRefresh(Base::prescribed(), mesh_.tangents());
    motion_.beginAssembly();
  }
  Status refreshSlice(const IterationPoint<Vector>& point, int first, int last) {
    matrix_.buildAside();
    const Status s = assembleElements(point, first, last);
    return s == Status::kOk ? matrix_.eliminateCompleteBlocks(last) : s;
  }
  Status finishRefresh(const IterationPoint<Vector>& point) {
    matrix_.buildAside();
    if (!matrix_.refreshEliminated()) return Status::kInvalidParameter;
    assemblePulleys(point);
    return matrix_.finishRefresh(point.coefficients->stiffnessFactor);
  }
  // The fixed-cost stepping's update between its post-Newton passes (fixed_cost_stepper.hpp,
  // docs/model_element.md §2.11): the pairs whose committed contact or stick/slip states differ
  // from those the solving matrix holds are evaluated again at the point, at most maxPairs of them
  // (each kind below from element 0 on), their change goes into the solving matrix, and its chain is eliminated
  // again from the first block they touch. The pairs whose change stiffens them (a segment makes
  // contact or starts sticking) go first: a matrix that lacks such a switch lets the next
  // correction run away (the sticking segment's tie of material to pulley is missing), while one
  // that keeps a softened pair's stiffer block converges more slowly but does not overshoot.
  // `updated`: pairs evaluated; `left`: changed pairs over the budget (they wait for the next
  // update or the refresh).
  Status updateSwitchedPairs(const IterationPoint<Vector>& point, int maxPairs, int& updated, int& left) {
    updated = 0;
    left = 0;
    int firstBlock = NE - 2;  // chain block k is node k + 1; node 0 is the border's
    matrix_.buildInSolving();
    for (int k = 0; k < 2 * NE; ++k) {  // the stiffening changes, then the others
      const int e = k % NE;
      const int p = wrappedCircle(e);
      if (p < 0) continue;
      const std::uint64_t signature = pair(e, p).jacobianSignature();
      const std::uint64_t holds = matrix_.solvingSignature(e);
      if (signature == holds || stiffens(holds, signature) != (k < NE)) continue;
      if (updated >= maxPairs) {
        ++left;
        continue;
      }
      typename NewtonMatrix::PairBlock block = NewtonMatrix::PairBlock::Zero();
      bool in = false;
      const Status s = pairBlock(mesh_.kinematics(*point.q, *point.v, e), p, circleState(*point.q, *point.v, p),
                                 *point.coefficients, block, in);
      if (s != Status::kOk) return s;
      // The new block less the one the solving matrix holds (fixed size, on the stack).
      typename NewtonMatrix::PairBlock change = block;
      if (const typename NewtonMatrix::PairBlock* held = matrix_.solvingBlock(e)) change -= *held;
      addPairBlock(change, e, p);
      matrix_.recordPair(e, in ? &block : nullptr, signature);
      ++updated;
      firstBlock = std::min(firstBlock, e == 0 ? 0 : e - 1);
    }
    return updated == 0 ? Status::kOk : matrix_.refactorizeFrom(firstBlock);
  }
  // Reference stepping: the compact border in its factorization (EulerianNewtonMatrix).
  void setCompactBorder(bool compact) { matrix_.setCompactBorder(compact); }

  Status solve(const Vector& r, Vector& delta) const { return matrix_.solve(r, delta); }

  // ---- step boundaries and the post-Newton step ------------------------------------------------
  // Carries the material's contact histories by what crossed each segment in the last accepted
  // step (its mesh speed w at the segment's start times the step), then D0 := D. A step opened
  // again after rejectStep carries nothing more: its start-of-step histories hold the carry.
  void beginStep() {
    if (reopened_) {
      reopened_ = false;
      Base::pulleyBodies().beginStep();
      return;
    }
    const int segments = Base::contact().segmentCount;
    // A segment's history belongs to the material at its start (its anchor and x_c are the start
    // point's, segment_geometry.hpp): samples at the segments' starts, each one's pitch to the next
    // (its own segment, L/segments) and the distance its material came in the last accepted step.
    double pitch[NE * NCS] = {}, travel[NE * NCS] = {};
    const bool isStatic = Base::phase().isStatic();
    const double carried = isStatic ? 0.0 : stepSize_;  // s
    for (int e = 0; e < NE; ++e)
      for (int i = 0; i < segments; ++i) {
        const double x = static_cast<double>(i) / segments;  // of the element
        const int j = e * segments + i;
        travel[j] = carried * ((1.0 - x) * lastMeshSpeed_[e][0] + x * lastMeshSpeed_[e][1]);
        pitch[j] = mesh_.elementLength(e) / segments;
      }
    // The anchors the step that ended pulled from are those of the mesh speeds it ended with.
    for (int e = 0; e < NE; ++e) carried_.setMeshSpeeds(e, lastMeshSpeed_[e][0], lastMeshSpeed_[e][1]);
    transportRefused_ = !(isStatic || stepSize_ > 0.0) ||
                        !carried_.carry(Base::pairs(), pulleyCount(), segments, pitch, travel, carried);
    Base::pulleyBodies().beginStep();
  }

  // Back to the start-of-step histories (pulleys_and_pairs.hpp), which are those after the step's
  // carry: the retry's beginStep must not carry the last step's travel a second time (a refused
  // carry, refused for every circle alike, left the histories to carry, and the retry carries).
  void rejectStep() {
    Base::rejectStep();
    reopened_ = !transportRefused_;
  }

  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    pnsKinematicsValid_ = false;
    if (transportRefused_) return Status::kInvalidParameter;
    Status worst = Status::kOk;
    const LayoutVector qL = point.q->template head<Layout::kSize>(), vL = point.v->template head<Layout::kSize>();
    Base::pulleyBodies().postNewtonStep(qL, vL, Base::mode(), error);
    if (moving()) {
      const Status st = updateStations(*point.q, *point.v, nullptr);
      if (st != Status::kOk) return st;
    }
    CircleState circle[NP];
    for (int p = 0; p < pulleyCount(); ++p) circle[p] = Base::circleState(qL, vL, p);
    for (int e = 0; e < NE; ++e) {
      const Kinematics& k = current_[e] = mesh_.kinematics(*point.q, *point.v, e);
      lastMeshSpeed_[e][0] = k.meshSpeed[0];
      lastMeshSpeed_[e][1] = k.meshSpeed[1];
      pnsCircle_[e] = -1;
      for (int p = 0; p < pulleyCount(); ++p) {
        if (!paired_[e][p] || worst == Status::kNonFiniteValue) continue;  // the mesh speeds still go on
        double pairError = 0.0;
        const PostNewtonKeep<NCS> keep{carried_.contactCoordinates(e, p), &pnsKinematics_[e]};
        carried_.setMeshSpeeds(e, k.meshSpeed[0], k.meshSpeed[1]);
        const Status s =
            pair(e, p).postNewtonStep(k.q, k.rates, mesh_.shapeTable(e), circle[p], pairError, nullptr, keep);
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
  // Moving stations: a node row's tangential part also goes to the moving centres' rows, weighted by
  // g_i (the residual's sum of g_i t_i.R_i).
  void addEntry(int row, int col, double value) {
    matrix_.addEntry(row, col, value, mesh_.tangents());
    if (!moving()) return;
    motion_.spreadNodeEntry(row, col, value, mesh_.tangents(), [this](int r, int c, double x) {
      matrix_.addEntry(r, c, x, mesh_.tangents());
    });
  }

 private:
  using Kinematics = EulerianElementKinematics;

  // Whether a pair's change of Jacobian signature (ContactPair::jacobianSignature: per segment 8
  // if flagged, the stick/slip state in the low 3 bits, 0 for stick) from `held` to `now` stiffens
  // it: a segment makes contact, or one in contact starts sticking.
  bool stiffens(std::uint64_t held, std::uint64_t now) const {
    for (int i = 0; i < Base::contact().segmentCount; ++i) {
      const unsigned n = (now >> (4 * i)) & 15u, o = (held >> (4 * i)) & 15u;
      if ((n & 8u) != 0u && ((o & 8u) == 0u || (n == 8u && o != 8u))) return true;
    }
    return false;
  }

  double gravityFactor() const { return Base::phase().isStatic() ? Base::phase().loadFactor : 1.0; }
  // Moving stations set up, in a build that has them (a constant false otherwise, so that a build
  // without them carries none of their code).
  bool moving() const { return kMovingStationsBuilt && motion_.anyMoving(); }

  // Elements [first, last) and their contact pairs: c_a dE/da + c_q dE/dq + c_v dE/dv.
  Status assembleElements(const IterationPoint<Vector>& point, int first, int last) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const IntegratorCoefficients& c = *point.coefficients;
    CircleState circles[NP];
    for (int p = 0; p < pulleyCount(); ++p) circles[p] = circleState(q, v, p);
    if (moving()) {
      const Status s = updateStations(q, v, point.a);
      if (s != Status::kOk) return s;
    }
    for (int e = first; e < last; ++e) {
      const Kinematics k = mesh_.kinematics(q, v, e);
      Vector10 rows;
      Matrix10 m;
      Status s = mesh_.elementRows(k, *point.a, gravityFactor(), &c, rows, &m);
      if (s != Status::kOk) return s;
      int index[13];
      Mesh::localIndices(e, index);
      if (moving()) {
        addStretchedElementBlock(k, rows, m, c.stiffnessFactor, index);
      } else {
        for (int i = 0; i < 10; ++i)
          for (int j = 0; j < 10; ++j) addEntry(index[i], index[j], m(i, j));
      }
      const int p = wrappedCircle(e);
      if (p < 0) continue;
      typename NewtonMatrix::PairBlock block;
      bool in = false;
      PairStretchCoupling coupling;
      s = pairBlock(k, p, circles[p], c, block, in, moving() ? &coupling : nullptr);
      if (s != Status::kOk) return s;
      if (in) addPairBlock(block, e, p);
      if (in && moving()) addPairStretchCoupling(coupling, e, p);
      matrix_.recordPair(e, in ? &block : nullptr, pair(e, p).jacobianSignature());
    }
    return Status::kOk;
  }
  // Pair (e, p)'s block c_q dF/dx + c_v dF/dv in the order (q 8, the pulley's x, y, phi, pA, pB);
  // `in`: whether any segment is flagged (else no block, the pair adds nothing).
  // The pair's carried anchors (carried_anchor.hpp) read the mesh speeds at k: its forces and its
  // block by them.
  // Moving stations: the pair's coupling to its part's stretch kappa, over the block's order (the
  // column of kappa, the kappa row's derivatives, their corner) and its kappa row.
  struct PairStretchCoupling {
    Eigen::Matrix<double, 13, 1> column, row;
    double corner = 0.0;
    double kappaRow = 0.0;
  };
  Status pairBlock(const Kinematics& k, int p, const CircleState& circle, const IntegratorCoefficients& c,
                   typename NewtonMatrix::PairBlock& block, bool& in, PairStretchCoupling* coupling = nullptr) {
    Pair& pair = this->pair(k.e, p);
    in = pair.anyFlagged();
    if (!in) return Status::kOk;
    carried_.setMeshSpeeds(k.e, k.meshSpeed[0], k.meshSpeed[1]);
    const SegmentShapeTable<NCS>& table = mesh_.shapeTable(k.e);
    Matrix11 ks, ds;
    Status s = contactPairJacobian(pair, k.q, k.rates, table, circle, ks, ds);
    if (s != Status::kOk) return s;
    Eigen::Matrix<double, 11, 2> bySpeed;
    s = carriedAnchorColumns(pair, k.q, k.rates, table, circle, bySpeed);
    if (s != Status::kOk) return s;
    PairForces f;
    s = pair.evaluateNewton(k.q, k.rates, table, circle, f);
    if (s != Status::kOk) return s;
    Eigen::Matrix<double, 11, 1> forces;
    forces << f.element, f.circleForce(0), f.circleForce(1), f.circleTorque;
    mesh_.pairBlock(k, forces, ks, ds, bySpeed, c, block);
    if (moving()) {
      // The rows R = kappa P F~(q~ = D q) (P = D on the slopes, F~ the drawn pair's 13 rows): their
      // block kappa P B~ P; by kappa (s = D' q, B~ the drawn block):
      //   column  P F~ + kappa P' F~ + kappa P B~ s   (the first two at c_q),
      //   kappa row kappa s.F~: by x kappa s^T B~ P + c_q kappa (P' F~)^T, by kappa c_q s.F~ + kappa s^T B~ s.
      using Vector13 = Eigen::Matrix<double, 13, 1>;
      const double kappa = mesh_.stretch(k.e).kappa;
      Vector13 scale = Vector13::Ones(), slopes = Vector13::Zero(), rows = Vector13::Zero();
      for (int node = 0; node < 2; ++node) scale(4 * node + 2) = scale(4 * node + 3) = kappa;
      slopes.template head<8>() = StretchedElement::slopes(k.q) / kappa;
      const Vector10 materialRows = Mesh::materialRows(k, f.element);
      rows.template head<11>() = forces;
      rows.template tail<2>() = materialRows.template tail<2>();
      if (coupling != nullptr) {
        const Vector13 blockSlopes = block * slopes;
        Vector13 slopeRows = Vector13::Zero();
        slopeRows.template head<8>() = StretchedElement::slopes(f.element);
        coupling->column = c.stiffnessFactor * (scale.asDiagonal() * rows + kappa * slopeRows) +
                           kappa * (scale.asDiagonal() * blockSlopes);
        coupling->row = kappa * (scale.asDiagonal() * (block.transpose() * slopes)) +
                        (c.stiffnessFactor * kappa) * slopeRows;
        coupling->corner = c.stiffnessFactor * slopes.dot(rows) + kappa * slopes.dot(blockSlopes);
        coupling->kappaRow = kappa * slopes.dot(rows);
      }
      block = kappa * (scale.asDiagonal() * block * scale.asDiagonal());
    }
    return Status::kOk;
  }
  // The system coordinates of pair (e, p)'s block: q 0..7, the pulley, then pA, pB.
  static void pairIndices(int e, int p, int (&index)[13]) {
    Mesh::localIndices(e, index);
    const int pA = index[8], pB = index[9];
    index[8] = pulleyDof(p, 0);
    index[9] = pulleyDof(p, 1);
    index[10] = pulleyDof(p, 2);
    index[11] = pA;
    index[12] = pB;
  }
  void addPairBlock(const typename NewtonMatrix::PairBlock& block, int e, int p) {
    int index[13];
    pairIndices(e, p, index);
    for (int i = 0; i < 13; ++i)
      for (int j = 0; j < 13; ++j) addEntry(index[i], index[j], block(i, j));
  }
  // A pair's coupling to its part's stretch (pairBlock) into the system through d kappa / d c.
  void addPairStretchCoupling(const PairStretchCoupling& coupling, int e, int p) {
    int index[13];
    pairIndices(e, p, index);
    motion_.addPair(e, coupling.column, coupling.row, coupling.corner, coupling.kappaRow, index,
                    [this](int r, int c, double x) { addEntry(r, c, x); });
  }
  // The pulley element e wraps among pulleys 0..before-1 (-1: none).
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
      Base::pulleys().addMatrix(p, qL, vL, c.massFactor, c.stiffnessFactor, c.dampingFactor, Base::mode(), *this);
    // Moving stations: c_q E_kappa,j d2 kappa_j / dc dc of each part.
    if (moving())
      motion_.addCentreCurvature(pulleyCount(), c.stiffnessFactor,
                                 [this](int r, int col, double x) { addEntry(r, col, x); });
  }

  // ---- moving stations ------------------------------------------------------------------------
  // A pair's forces as the residual evaluates them, and its penalty energy at the point (the
  // segments it evaluated).
  Status evaluateWithEnergy(Pair& pair, const Kinematics& k, const SegmentShapeTable<NCS>& table,
                            const CircleState& cs, const PairKinematics<NCS>* known, PairForces& f,
                            double& potential) {
    PairKinematics<NCS> gaps;
    const Status st = Base::decidesInNewton() ? pair.evaluateDecided(k.q, k.rates, table, cs, f, known, &gaps)
                                              : pair.evaluateNewton(k.q, k.rates, table, cs, f, &gaps, known);
    potential = 0.0;
    for (int i = 0; i < Base::contact().segmentCount; ++i)
      if (gaps.known[i]) potential += contactPotential(pair.parameters(), gaps.segment[i].geometry.gap);
    return st;
  }
  // The stations at (q, v, a) (EulerianStationMotion::update; a == nullptr: acceleration 0), and
  // every element's part stretch into the mesh.
  Status updateStations(const Vector& q, const Vector& v, const Vector* a) {
    Vector2 centre[NP];
    for (int p = 0; p < NP; ++p)
      centre[p] = p < pulleyCount() ? Vector2(q(pulleyDof(p, 0)), q(pulleyDof(p, 1))) : Vector2::Zero();
    for (int p = 0; p < pulleyCount(); ++p)
      if (!centre[p].allFinite()) return Status::kNonFiniteValue;
    Vector2 rate[NP], acceleration[NP];
    for (int m = 0; m < motion_.movingCount(); ++m) {
      const int p = motion_.movingPulley(m);
      rate[m] = Vector2(v(pulleyDof(p, 0)), v(pulleyDof(p, 1)));
      acceleration[m] = a ? Vector2((*a)(pulleyDof(p, 0)), (*a)(pulleyDof(p, 1))) : Vector2::Zero();
    }
    const Status s = motion_.update(centre, rate, a ? acceleration : nullptr, mesh_.tangents());
    if (s != Status::kOk) return s;
    for (int e = 0; e < NE; ++e) mesh_.setStretch(e, motion_.partStretch(motion_.partOf(e)));
    return Status::kOk;
  }
  // A stretched element's block (EulerianMesh::stretchedBlock) into the system: (q, p) x (q, p),
  // and its coupling with the moving centres (EulerianStationMotion::addStretchedElement).
  void addStretchedElementBlock(const Kinematics& k, const Vector10& rows, const Matrix10& m, double cq,
                                const int (&index)[13]) {
    Eigen::Matrix<double, 11, 11> b;
    mesh_.stretchedBlock(k, rows, m, cq, b);
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j) addEntry(index[i], index[j], b(i, j));
    const double kappaRow = StretchedElement::slopes(k.q).dot(rows.template head<8>()) / mesh_.stretch(k.e).kappa;
    motion_.addStretchedElement(
        k.e, b, kappaRow, Base::lumpedNodeMass(), index, [this](int r, int c, double x) { addEntry(r, c, x); },
        [this](int e, int c, double x) { matrix_.addVelocityRowEntry(e, c, x); });
  }

  void copyOwnStateFrom(const EulerianBeltDrive& o) {
    mesh_ = o.mesh_;
    staticPrevious_ = o.staticPrevious_;
    staticLocks_ = o.staticLocks_;
    matrix_ = o.matrix_;
    stepSize_ = o.stepSize_;
    std::copy(o.current_, o.current_ + NE, current_);
    std::copy(o.pnsKinematics_, o.pnsKinematics_ + NE, pnsKinematics_);
    std::copy(o.pnsCircle_, o.pnsCircle_ + NE, pnsCircle_);
    std::copy(&o.lastMeshSpeed_[0][0], &o.lastMeshSpeed_[0][0] + 2 * NE, &lastMeshSpeed_[0][0]);
    std::copy(&o.paired_[0][0], &o.paired_[0][0] + NE * NP, &paired_[0][0]);
    pnsQ_ = o.pnsQ_;
    pnsV_ = o.pnsV_;
    pnsKinematicsValid_ = o.pnsKinematicsValid_;
    carried_ = o.carried_;
    transportRefused_ = o.transportRefused_;
    reopened_ = o.reopened_;
    motion_ = o.motion_;
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < NP; ++p) pair(e, p).carryWith(carried_.anchor(e, p));
  }

  Mesh mesh_;
  Vector staticPrevious_ = Vector::Zero();  // the static solve's previous load step and locks, all unknowns
  Vector staticLocks_ = Vector::Zero();
  NewtonMatrix matrix_;  // its storages and the rows it keeps; this class gives its entries
  double stepSize_ = 0.0;  // s; 0 until setStepSize
  Kinematics current_[NE];  // every element's kinematics at the last residual's or post-Newton step's state
  // What the last post-Newton step computed, at (pnsQ_, pnsV_): current_ and each element's pair
  // kinematics with pulley pnsCircle_[e] (-1: none); valid until a residual at another state.
  PairKinematics<NCS> pnsKinematics_[NE];
  int pnsCircle_[NE] = {};
  Vector pnsQ_ = Vector::Zero(), pnsV_ = Vector::Zero();
  bool pnsKinematicsValid_ = false;
  CarriedHistories<NE, NP, NCS> carried_;  // x_c of the material at the segments, and the transport
  double lastMeshSpeed_[NE][2] = {};       // w at each element's nodes at the last post-Newton step, m/s
  bool paired_[NE][NP] = {};               // element e wraps pulley p (fixed at the start)
  bool transportRefused_ = false;
  bool reopened_ = false;  // rejectStep after a carry: the next beginStep opens the same step again
  EulerianStationMotion<NE, NP> motion_;  // moving stations (setUpMovingStations)
};

}  // namespace beltsim
