// A closed belt drive on a mesh that stands still (docs/model.md §2.10, §4.12): NE ANCF elements
// whose nodes keep their places on the path while the belt's material flows through them, with
// one transport coordinate sigma (the distance the material has travelled, reference length) for
// the whole belt, up to NP circles with NCS contact segments per element. It is the System of the
// reference stepper (reference_stepper.hpp). Early form: uniform elements, the reference stepping
// only (a whole Newton matrix at every build), started from a material drive's static state.
//
// Unknowns: the material drive's layout (drive_layout.hpp), with sigma in the first slot of the
// unused node NE of a closed belt (its three other slots stay 0). Per element, with the material
// rates q_dot_m = q_dot + v T q (material_velocity.hpp) and v = sigma_dot:
//   element rows:  inertia of the flowing material (material_flow_inertia.hpp)
//                  + Q_int(q, q_dot_m)  (elastic forces, strain-rate damping on the material rate)
//                  - Q_g + contact forces F(q, q_dot_m)
//   transport row: the inertia's transport row + (Q_d - Q_g + F)^T T q, Q_d the damping part of
//                  Q_int (the elastic forces do no work when the material slides along the path
//                  of a closed belt).
// The gauge (the mesh's slide along its own path is a null mode, §2.10): one node's velocity along
// its tangent at the start is 0 (a replaced row), so it stays where it started. Which node
// matters: the others drift along the path as the load moves strain between the spans (form A),
// and a node that drifts off the point where the belt leaves the driven pulley leaves an element
// straddling it (docs/model.md §2.10). The contact pairs' histories are
// carried with the material at the start of every step (anchor_transport.hpp) by the distance
// the material travelled in the last accepted step's speed.
//
// Newton matrix: the block solver of the material drive with node 0, the circles and sigma in
// its border (chain: nodes 1..NE-1); each build evaluates every element and pair.
#pragma once
#include "beltsim/contact/carried_histories.hpp"
#include "beltsim/contact/contact_jacobian.hpp"  // and the pair itself
#include "beltsim/element/material_flow_inertia.hpp"
#include "beltsim/element/material_velocity.hpp"
#include "beltsim/solver/bordered_block_tridiagonal.hpp"
#include "beltsim/system/prescribed_rows.hpp"  // and the layout, the pulleys, the stepper's interface

namespace beltsim {

template <int NE, int NP, int NCS>
class EulerianBeltDrive {
  using Layout = DriveLayout<NE, NP>;

 public:
  static_assert(NE >= 3, "a closed belt of at least 3 elements");
  static constexpr int kElements = NE;
  static constexpr int kPulleys = NP;
  static constexpr int kSize = Layout::kSize;
  static constexpr int kTransport = 4 * NE;  // sigma: the first slot of the unused node NE
  static constexpr int kBorder = 4 + 1 + 3 * NP;  // node 0, sigma, the circles
  static constexpr int kSolverSize = 4 * (NE - 1) + kBorder;
  using Vector = typename Layout::Vector;
  using Vector8 = typename Layout::Vector8;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;
  using Element = AncfCable2D<double>;
  using Pair = ContactPair<NCS>;
  using Solver = BorderedBlockTridiagonal<NE - 1, 4, kBorder>;
  using SolverVector = Eigen::Matrix<double, kSolverSize, 1>;

  // ---- set-up ---------------------------------------------------------------------------------
  // A closed belt of NE elements of reference length elementLength; the element's reference
  // curvature must be 0 (a stress-free state that differs along the mesh would stay with it).
  ParameterError setUp(const BeltParameters& belt, double elementLength, const PulleyParameters* circles,
                       int pulleyCount, const ContactParameters& contact) {
    if (!belt.closed) return ParameterError::invalid("belt.closed");
    if (pulleyCount < 1 || pulleyCount > NP) return ParameterError::invalid("circle.count");
    if (belt.element.referenceCurvature != 0.0) return ParameterError::invalid("referenceCurvature");
    belt_ = belt;
    belt_.element.length = elementLength;
    ParameterError e = element_.setUp(belt_.element);
    if (!e.ok()) return e;
    e = flow_.setUp(elementLength, belt_.element.massPerLength);
    if (!e.ok()) return e;
    e = material_.setUp(elementLength);
    if (!e.ok()) return e;
    slope_ = material_.slopeMatrix();
    pulleys_.setCount(pulleyCount);
    for (int p = 0; p < pulleyCount; ++p) {
      e = pulleys_.setUp(p, circles[p]);
      if (!e.ok()) return e;
      const ContactParameters cp = pairContact(contact, circles[p], belt_, elementLength);
      for (int k = 0; k < NE; ++k) {
        e = pair_[k][p].setUp(cp);
        if (!e.ok()) return e;
      }
    }
    contact_ = contact;
    pulleys_.clearInput();
    shapeTable_.build(elementLength, contact.segmentCount);
    const Matrix8& m = element_.massMatrix();
    lumpedNodeMass_ = m(0, 0) + m(0, 4);
    return ParameterError::success();
  }

  // Starts from a state of the same layout (a material drive's static equilibrium, at rest):
  // sigma = 0, the gauge at node gaugeNode, and the contact pairs' histories (pair(e, p).history
  // of the material drive, handed over by `history(e, p, i)`).
  template <class HistorySource>
  void start(Vector& q, HistorySource&& history, int gaugeNode = 0) {
    for (int l = 0; l < 4; ++l) q(kTransport + l) = 0.0;
    gaugeNode_ = gaugeNode;
    const int g = 4 * gaugeNode;
    const Vector2 slope(q(g + 2), q(g + 3));
    gaugeTangent_ = slope / slope.norm();
    gaugeRow_ = g + ((gaugeTangent_(0) < 0 ? -gaugeTangent_(0) : gaugeTangent_(0)) >=
                             (gaugeTangent_(1) < 0 ? -gaugeTangent_(1) : gaugeTangent_(1))
                         ? 0
                         : 1);
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) {
        for (int i = 0; i < contact_.segmentCount; ++i) pair_[e][p].setHistory(i, history(e, p, i));
        pair_[e][p].beginStep();
      }
    carried_.clear();
    lastTransportSpeed_ = 0.0;
    transportRefused_ = false;
  }

  // The step size the anchors are carried with (the stepper's).
  void setStepSize(double h) { stepSize_ = h; }

  const BeltParameters& belt() const { return belt_; }
  const Element& element() const { return element_; }
  int pulleyCount() const { return pulleys_.count(); }
  const PulleyParameters& circle(int p) const { return pulleys_.circle(p); }
  const Pair& pair(int e, int p) const { return pair_[e][p]; }
  static constexpr int pulleyDof(int p, int local) { return Layout::pulleyDof(p, local); }
  int nextNode(int e) const { return e == NE - 1 ? 0 : e + 1; }
  Vector8 gatherElement(const Vector& x, int e) const { return Layout::gather(x, e, nextNode(e)); }
  // Element e's material rates q_dot + v T q.
  Vector8 materialRates(const Vector& q, const Vector& v, int e) const {
    return material_.materialRates(gatherElement(q, e), gatherElement(v, e), v(kTransport));
  }
  CircleState circleState(const Vector& q, const Vector& v, int p) const { return pulleys_.state(q, v, p); }
  void setInput(const BeltDriveInput<NP>& input) { pulleys_.setInput(input); }
  double driveTorque(int p) const { return reactions_.driveTorque[p]; }
  double beltTorque(int p) const { return reactions_.beltTorque[p]; }
  Vector2 hubForce(int p) const { return reactions_.hubForce[p]; }

  // ---- the stepper's interface (system_interface.hpp) ------------------------------------------
  Status residual(const IterationPoint<Vector>& point, Vector& r) {
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const Vector& a = *point.a;
    r.setZero();
    for (int e = 0; e < NE; ++e) {
      ElementTerms t;
      const Status s = elementTerms(point, e, false, t);
      if (s != Status::kOk) return s;
      const Vector8 along = t.internal - t.elastic - element_.gravityForce();  // forces that drive the material
      const Vector8 rows = t.inertia.force.template head<8>() + t.internal - element_.gravityForce();
      r(kTransport) += t.inertia.force(8) + along.dot(t.slopeRates);
      Layout::scatter(rows, e, nextNode(e), r);
    }
    for (int p = 0; p < NP; ++p) {
      reactions_.beltTorque[p] = 0.0;
      reactions_.hubForce[p] = Vector2::Zero();
      const Status s = forEachFlaggedPair(q, v, p, [&](int e, Pair& pair, const Vector8& qe, const Vector8& slopeRates,
                                                       const Vector8& rates, const CircleState& cs) {
        PairForces f;
        const Status st = pair.evaluateNewton(qe, rates, shapeTable_, cs, f);
        if (st != Status::kOk || f.activeSegments == 0) return st;
        Layout::scatter(f.element, e, nextNode(e), r);
        r(kTransport) += f.element.dot(slopeRates);
        r(pulleyDof(p, 0)) += f.circleForce(0);
        r(pulleyDof(p, 1)) += f.circleForce(1);
        r(pulleyDof(p, 2)) += f.circleTorque;
        reactions_.beltTorque[p] -= f.circleTorque;
        reactions_.hubForce[p] -= f.circleForce;
        return Status::kOk;
      });
      if (s != Status::kOk) return s;
      pulleys_.addResidual(p, q, v, a, point.time, phase_, r);
    }
    // Prescribed rows of the circles (and the unused slots of node NE); sigma keeps its row.
    const double transportRow = r(kTransport);
    prescribed().applyToResidual(point, phase_, reactions_, r);
    r(kTransport) = transportRow;
    // The gauge: node's velocity along its start tangent is 0 (velocity level and scaled like the
    // prescribed rows; the trapezoidal rule then keeps its position along the tangent).
    const IntegratorCoefficients& c = *point.coefficients;
    const int g = 4 * gaugeNode_;
    r(gaugeRow_) = lumpedNodeMass_ * gaugeTangent_.dot(Vector2(v(g), v(g + 1))) / c.dampingFactor;
    return Status::kOk;
  }

  Status factorize(const IterationPoint<Vector>& point, MatrixUpdate, bool& built) {
    built = true;
    const Vector& q = *point.q;
    const Vector& v = *point.v;
    const IntegratorCoefficients& c = *point.coefficients;
    const double cm = c.massFactor, cq = c.stiffnessFactor, cv = c.dampingFactor;
    const double speed = v(kTransport);
    solver_.setZero();
    for (int e = 0; e < NE; ++e) {
      int index[9];
      localIndices(e, index);
      ElementTerms t;
      const Status s = elementTerms(point, e, true, t);
      if (s != Status::kOk) return s;
      const MaterialFlowTerms& inertia = t.inertia;
      const Vector8& slopeRates = t.slopeRates;
      const Matrix8& k = t.stiffness;
      const Matrix8& d = t.damping;
      // Element rows: dQ/dq + v D T, D, D T q (material rates); the inertia's blocks.
      Eigen::Matrix<double, 9, 9> m = cm * inertia.byAcceleration + cq * inertia.byPosition + cv * inertia.byVelocity;
      const Matrix8 dT = d * slope_;
      m.template topLeftCorner<8, 8>() += cq * (k + speed * dT) + cv * d;
      m.template block<8, 1>(0, 8) += cv * (d * slopeRates);
      // Transport row: (Q_d - Q_g)^T T q, Q_d = internal - elastic.
      const Vector8 along = t.internal - t.elastic - element_.gravityForce();
      const Matrix8 dampingByQ = (k - t.elasticStiffness) + speed * dT;  // d Q_d / dq at fixed q_dot and v
      const Eigen::Matrix<double, 1, 8> tq = slopeRates.transpose();
      m.template block<1, 8>(8, 0) += cq * (tq * dampingByQ + along.transpose() * slope_) + cv * (tq * d);
      m(8, 8) += cv * (tq * d * slopeRates)(0, 0);
      for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j) addEntry(index[i], index[j], m(i, j));
    }
    for (int p = 0; p < NP; ++p) {
      const Status s = forEachFlaggedPair(q, v, p, [&](int e, Pair& pair, const Vector8& qe, const Vector8& slopeRates,
                                                       const Vector8& rates, const CircleState& cs) {
        Matrix11 ks, ds;
        Status st = contactPairJacobian(pair, qe, rates, shapeTable_, cs, ks, ds);
        if (st != Status::kOk) return st;
        PairForces f;
        st = pair.evaluateNewton(qe, rates, shapeTable_, cs, f);
        if (st != Status::kOk) return st;
        // [element 8, circle 3, sigma 1]
        Eigen::Matrix<double, 12, 12> m = Eigen::Matrix<double, 12, 12>::Zero();
        m.template topLeftCorner<11, 11>() = cq * ks + cv * ds;
        const Eigen::Matrix<double, 11, 8> dsT = ds.template leftCols<8>() * slope_;
        m.template topLeftCorner<11, 8>() += cq * speed * dsT;
        m.template block<11, 1>(0, 11) = cv * (ds.template leftCols<8>() * slopeRates);
        // Transport row F^T T q: (T q)^T dF/d(...) + F^T T on the element's coordinates.
        const Eigen::Matrix<double, 1, 8> tq = slopeRates.transpose();
        const Eigen::Matrix<double, 8, 11> fq = ks.template topRows<8>();
        const Eigen::Matrix<double, 8, 11> fv = ds.template topRows<8>();
        Eigen::Matrix<double, 1, 11> rowQ = tq * fq;
        rowQ.template head<8>() += tq * (speed * fv.template leftCols<8>() * slope_) + f.element.transpose() * slope_;
        m.template block<1, 11>(11, 0) = cq * rowQ + cv * (tq * fv);
        m(11, 11) = cv * (tq * fv.template leftCols<8>() * slopeRates)(0, 0);
        int index[12];
        localIndices(e, index);
        index[11] = kTransport;
        index[8] = pulleyDof(p, 0);
        index[9] = pulleyDof(p, 1);
        index[10] = pulleyDof(p, 2);
        for (int i = 0; i < 12; ++i)
          for (int j = 0; j < 12; ++j) addEntry(index[i], index[j], m(i, j));
        return Status::kOk;
      });
      if (s != Status::kOk) return s;
      pulleys_.addMatrix(p, q, v, cm, cq, cv, phase_.mode, *this);
    }
    const PrescribedRows<NE, NP> rows = prescribed();
    for (int dof = 4 * (NE + 1); dof < kSize; ++dof) {
      if (!rows.prescribed(dof)) continue;
      clearRow(dof);
      addEntry(dof, dof, rows.rowScale(dof));
    }
    clearRow(gaugeRow_);
    addEntry(gaugeRow_, 4 * gaugeNode_, lumpedNodeMass_ * gaugeTangent_(0));
    addEntry(gaugeRow_, 4 * gaugeNode_ + 1, lumpedNodeMass_ * gaugeTangent_(1));
    solveScale_ = cq;
    return solver_.factorize();
  }

  Status solve(const Vector& r, Vector& delta) const {
    SolverVector rhs, x;
    for (int dof = 0; dof < kSize; ++dof) {
      const int s = solverIndex(dof);
      if (s >= 0) rhs(s) = solveScale_ * r(dof);
    }
    const Status st = solver_.solve(rhs, x);
    for (int dof = 0; dof < kSize; ++dof) {
      const int s = solverIndex(dof);
      delta(dof) = s >= 0 ? x(s) : 0.0;
    }
    return st;
  }

  // Carries the material's contact histories by the last accepted step's travel, then D0 := D.
  void beginStep() {
    const double shift = lastTransportSpeed_ * stepSize_;
    const int segments = contact_.segmentCount;
    // Uniform samples, every one carried by sigma's travel. A refused transport (the material
    // travelled a whole segment in one step, or a non-finite speed) leaves the histories where they
    // are and faults the step at its post-Newton step.
    double pitch[NE * NCS], travel[NE * NCS];
    for (int j = 0; j < NE * NCS; ++j) {
      pitch[j] = belt_.element.length / segments;
      travel[j] = shift;
    }
    transportRefused_ = !carried_.carry(pair_, pulleyCount(), segments, pitch, travel);
    pulleys_.beginStep();
  }
  void rejectStep() {
    for (int e = 0; e < NE; ++e)
      for (int p = 0; p < pulleyCount(); ++p) pair_[e][p].rejectStep();
    pulleys_.rejectStep();
  }

  Status postNewtonStep(const IterationPoint<Vector>& point, double& error) {
    error = 0.0;
    if (transportRefused_) return Status::kInvalidParameter;
    Status worst = Status::kOk;
    pulleys_.postNewtonStep(*point.q, *point.v, phase_.mode, error);
    lastTransportSpeed_ = (*point.v)(kTransport);
    for (int p = 0; p < pulleyCount(); ++p) {
      const CircleState cs = circleState(*point.q, *point.v, p);
      for (int e = 0; e < NE; ++e) {
        double pairError = 0.0;
        const Vector8 qe = gatherElement(*point.q, e), rates = materialRates(*point.q, *point.v, e);
        const Status s = pair_[e][p].postNewtonStep(qe, rates, shapeTable_, cs, pairError);
        if (s == Status::kNonFiniteValue) return s;
        if (s != Status::kOk) worst = s;
        if (pairError > error) error = pairError;
        carried_.record(pair_[e][p], qe, rates, shapeTable_, belt_.element.length, cs, e, p);
      }
    }
    return worst;
  }

  // ---- matrix assembly in system coordinates (also PulleyBodies::addMatrix's target) ----------
  void addEntry(int row, int col, double value) {
    const int sr = solverIndex(row), sc = solverIndex(col);
    if (sr >= 0 && sc >= 0) solver_.add(sr, sc, value);
  }

 private:
  // visit(e, pair, q_e, T q_e, material rates, circle) for every pair of circle p (in use) with a
  // flagged segment; stops at the first status but kOk.
  template <class Visit>
  Status forEachFlaggedPair(const Vector& q, const Vector& v, int p, Visit&& visit) {
    if (p >= pulleyCount()) return Status::kOk;
    const CircleState cs = circleState(q, v, p);
    for (int e = 0; e < NE; ++e) {
      Pair& pair = pair_[e][p];
      if (!pair.anyFlagged()) continue;
      const Vector8 qe = gatherElement(q, e);
      const Vector8 slopeRates = material_.slopeRates(qe);
      const Status s = visit(e, pair, qe, slopeRates, Vector8(gatherElement(v, e) + v(kTransport) * slopeRates), cs);
      if (s != Status::kOk) return s;
    }
    return Status::kOk;
  }

  // One element's share at a point: its inertia (with derivatives), its internal force at the
  // material rates and at none (the elastic part), with the Jacobians when asked for.
  struct ElementTerms {
    Vector8 slopeRates;  // T q
    MaterialFlowTerms inertia;
    Vector8 internal, elastic;
    Matrix8 stiffness, damping, elasticStiffness;
  };
  Status elementTerms(const IterationPoint<Vector>& point, int e, bool jacobian, ElementTerms& t) const {
    const Vector8 qe = gatherElement(*point.q, e), ve = gatherElement(*point.v, e);
    const double speed = (*point.v)(kTransport);
    t.slopeRates = material_.slopeRates(qe);
    const Vector8 rates = ve + speed * t.slopeRates;
    Status s = flow_.evaluate(qe, ve, gatherElement(*point.a, e), speed, (*point.a)(kTransport), t.inertia);
    if (s != Status::kOk) return s;
    if (!jacobian) {
      s = element_.internalForce(qe, rates, t.internal);
      if (s != Status::kOk) return s;
      return element_.internalForce(qe, Vector8::Zero(), t.elastic);
    }
    s = element_.internalForceAndJacobian(qe, rates, t.internal, t.stiffness, t.damping);
    if (s != Status::kOk) return s;
    Matrix8 unused;
    return element_.internalForceAndJacobian(qe, Vector8::Zero(), t.elastic, t.elasticStiffness, unused);
  }

  // System coordinate -> solver index; -1 for the unused slots of node NE. Chain: nodes 1..NE-1;
  // border: node 0, sigma, the circles.
  static int solverIndex(int dof) {
    const int border = 4 * (NE - 1);
    if (dof < 4) return border + dof;
    if (dof < 4 * NE) return dof - 4;
    if (dof == kTransport) return border + 4;
    if (dof < 4 * (NE + 1)) return -1;
    return border + 5 + (dof - 4 * (NE + 1));
  }
  void localIndices(int e, int* index) const {
    const int b = nextNode(e);
    for (int i = 0; i < 4; ++i) {
      index[i] = 4 * e + i;
      index[4 + i] = 4 * b + i;
    }
    index[8] = kTransport;
  }
  void clearRow(int dof) {
    const int sr = solverIndex(dof);
    if (sr >= 0) solver_.clearRow(sr);
  }
  PrescribedRows<NE, NP> prescribed() const { return {pulleys_, belt_, phase_.mode, lumpedNodeMass_}; }

  BeltParameters belt_;
  ContactParameters contact_;
  Element element_;
  MaterialFlowInertia flow_;
  MaterialVelocity material_;
  Matrix8 slope_ = Matrix8::Zero();
  double lumpedNodeMass_ = 1.0;
  PulleyBodies<NE, NP> pulleys_;
  Pair pair_[NE][NP];
  SegmentShapeTable<NCS> shapeTable_;
  StaticPhase<Vector> phase_;
  PulleyReactions<NP> reactions_;
  Solver solver_;
  double solveScale_ = 1.0;
  Vector2 gaugeTangent_ = Vector2(1.0, 0.0);
  int gaugeNode_ = 0;
  int gaugeRow_ = 0;
  double stepSize_ = 0.0;
  CarriedHistories<NE, NP, NCS> carried_;  // x_c of the material at the segments, and the transport
  double lastTransportSpeed_ = 0.0;
  bool transportRefused_ = false;  // this step's contact histories could not be carried
};

}  // namespace beltsim
