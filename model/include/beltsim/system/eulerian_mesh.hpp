// The eulerian mesh of a closed belt (docs/model_element.md §2.11): NE elements whose nodes stay
// where they started on the belt's path, each of its own mesh length, each node with the material
// coordinate p_i of the material at it. What the mesh computes for its drive
// (eulerian_belt_drive.hpp): an element's kinematics, its own rows (inertia of the material
// flowing through it, elastic forces of its material, gravity, strain-rate damping) with their
// Newton block, a contact pair's rows and block through the material rates, and the node rows that
// keep every node on its start tangent.
//
// Unknowns: the drive's layout (drive_layout.hpp; node NE's slots unused) followed by p_0 ..
// p_{NE-1} (m of reference length). Element e spans nodes e and e+1 (the last one closes the belt:
// its end carries p_0 plus the belt's reference length). Per element, with lambda = (pB - pA)/L,
// the material passes the mesh at w = -(pA_dot N_A + pB_dot N_B)/lambda and its rates are
// q_dot_m = q_dot + w_A T_A q + w_B T_B q (material_velocity.hpp):
//   rows of (q, pA, pB):  the material's inertia (eulerian_flow_inertia.hpp)
//                         + the elastic forces of its material (eulerian_cable2d.hpp)
//                         + the gravity potential -lambda F_g^T q
//                         + forces on the material F(q, q_dot_m) (strain-rate damping, contact):
//                           F on the element's rows, -(1/lambda) F^T T_a q on p_a's row.
// Stretched parts (pulleys whose centres move, docs/model_moving_stations.md): once the drive has
// set each element's stretch (setStretch, useStretches), an element keeps its drawn length's tables
// and is evaluated at q~ = D(kappa) q (element/part_stretch.hpp): its kinematics hold q~ and its
// rates, its rows come in q~ and scatterStretched maps them to q and to the part's kappa row.
#pragma once
#include <cmath>

#include "beltsim/contact/segment_geometry.hpp"
#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/element/eulerian_cable2d.hpp"
#include "beltsim/element/eulerian_element_kinematics.hpp"
#include "beltsim/element/eulerian_flow_inertia.hpp"
#include "beltsim/element/part_stretch.hpp"
#include "beltsim/stepping/integrator_coefficients.hpp"
#include "beltsim/system/drive_layout.hpp"

// Whether the eulerian mesh's moving stations (docs/model_moving_stations.md) are compiled in: 1 by
// default, 0 in the bare-metal builds (CMakeLists.txt), whose configurations have fixed centres and
// whose images must fit the Cortex-M7's memory budget.
#ifndef BELTSIM_MOVING_STATIONS
#define BELTSIM_MOVING_STATIONS 1
#endif

namespace beltsim {

inline constexpr bool kMovingStationsBuilt = BELTSIM_MOVING_STATIONS != 0;

template <int NE, int NP, int NCS>
class EulerianMesh {
  using Layout = DriveLayout<NE, NP>;

 public:
  static_assert(NE >= 3, "a closed belt of at least 3 elements");
  static constexpr int kSize = Layout::kSize + NE;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using LayoutVector = typename Layout::Vector;
  using Vector10 = Eigen::Matrix<double, 10, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix10 = Eigen::Matrix<double, 10, 10>;
  using Element = AncfCable2D<double>;
  using Kinematics = EulerianElementKinematics;
  using Tangents = Vector2[NE];
  static constexpr int materialDof(int node) { return Layout::kSize + node; }
  static int nextNode(int e) { return e == NE - 1 ? 0 : e + 1; }

  // ---- set-up ---------------------------------------------------------------------------------
  // Element e of mesh length `length`, its material's parameters `element` (its own length
  // ignored), its contact scale (its pairs' per-segment contact values over those of setUp's
  // contact, pulleys_and_pairs.hpp) and its contact segments' shape table.
  ParameterError setUpElement(int e, const AncfCable2DParameters<double>& element, double length, double contactScale,
                              int segmentCount) {
    AncfCable2DParameters<double> own = element;
    own.length = length;
    length_[e] = length;
    ParameterError error = cable_[e].setUp(own);
    if (!error.ok()) return error;
    error = element_[e].setUp(own);
    if (!error.ok()) return error;
    error = flow_[e].setUp(length, own.massPerLength);
    if (!error.ok()) return error;
    error = material_[e].setUp(length);
    if (!error.ok()) return error;
    for (int a = 0; a < 2; ++a) nodalSlope_[e][a] = material_[e].nodalSlopeMatrix(a);
    shapeTable_[e].build(length, segmentCount);
    contactScale_[e] = contactScale;
    axialStiffness_ = own.EA;
    return ParameterError::success();
  }
  // The node rows' scale: rho A L / 2 of the shortest element, kg.
  double lumpedNodeMass() const {
    int shortest = 0;
    for (int k = 1; k < NE; ++k)
      if (length_[k] < length_[shortest]) shortest = k;
    const Matrix8& m = element_[shortest].massMatrix();
    return m(0, 0) + m(0, 4);
  }
  // The belt's EA, checked for both parts of every element before any is written.
  static ParameterError checkAxialStiffness(double EA) {
    if (!Element::checkAxialStiffness(EA).ok() || !EulerianCable2D::checkAxialStiffness(EA).ok())
      return ParameterError::invalid("EA");
    return ParameterError::success();
  }
  ParameterError setAxialStiffness(double EA) {
    const ParameterError error = checkAxialStiffness(EA);
    if (!error.ok()) return error;
    for (int e = 0; e < NE; ++e) {
      (void)element_[e].setAxialStiffness(EA);  // checked above
      (void)cable_[e].setAxialStiffness(EA);
    }
    axialStiffness_ = EA;
    return ParameterError::success();
  }
  // Holds every node on its tangent at x (the direction of its velocity row from now on) and takes
  // the belt's reference length.
  void holdNodes(const Vector& x) {
    beltLength_ = 0.0;
    for (int i = 0; i < NE; ++i) {
      const Vector2 slope(x(4 * i + 2), x(4 * i + 3));
      tangent_[i] = slope / slope.norm();
      beltLength_ += length_[i];
    }
  }

  // ---- what the mesh is -------------------------------------------------------------------------
  const Element& element(int e) const { return element_[e]; }
  double elementLength(int e) const { return length_[e]; }
  double contactScale(int e) const { return contactScale_[e]; }
  double beltLength() const { return beltLength_; }  // the belt's reference length, m
  const Tangents& tangents() const { return tangent_; }
  const SegmentShapeTable<NCS>& shapeTable(int e) const { return shapeTable_[e]; }
  // Node i's place on the path: the mesh length from node 0 to it, m.
  double station(int node) const {
    double s = 0.0;
    for (int e = 0; e < node && e < NE; ++e) s += length_[e];
    return s;
  }

  // ---- kinematics --------------------------------------------------------------------------------
  // Element e's coordinates and its nodes' material coordinates (the closing element's end
  // carries p_0 plus the belt's reference length; rates and accelerations carry no offset).
  static Vector8 gatherElement(const Vector& x, int e) {
    return Layout::gather(LayoutVector(x.template head<Layout::kSize>()), e, nextNode(e));
  }
  Vector2 gatherMaterial(const Vector& x, int e, bool position) const {
    const int b = nextNode(e);
    return Vector2(x(materialDof(e)), x(materialDof(b)) + (position && b == 0 ? beltLength_ : 0.0));
  }
  Kinematics kinematics(const Vector& q, const Vector& v, int e) const {
    if (!stretched())
      return Kinematics::at(e, gatherElement(q, e), gatherElement(v, e), gatherMaterial(q, e, true),
                            gatherMaterial(v, e, false), length_[e], material_[e]);
    // The drawn element at q~ = D q, q~_dot = D q_dot + kappa_dot D' q.
    const PartStretch& s = stretch_[e];
    const Vector8 qe = gatherElement(q, e), ve = gatherElement(v, e);
    const Vector8 vScaled = StretchedElement::scaled(s.kappa, ve) + s.rate * StretchedElement::slopes(qe);
    return Kinematics::at(e, StretchedElement::scaled(s.kappa, qe), vScaled, gatherMaterial(q, e, true),
                          gatherMaterial(v, e, false), length_[e], material_[e]);
  }

  // ---- stretched parts -------------------------------------------------------------------------
  // Element e's part is stretched by s from its drawn length (the drive's moving stations).
  void setStretch(int e, const PartStretch& s) { stretch_[e] = s; }
  // Whether kinematics, rows and blocks read the stretches (off: every element as drawn, and the
  // arithmetic is that of a mesh without moving stations).
  void useStretches(bool on) { stretched_ = on; }
  bool stretched() const { return kMovingStationsBuilt && stretched_; }
  const PartStretch& stretch(int e) const { return stretch_[e]; }
  // Rows (q~ 8, pA, pB) of element e into the system's rows of (q, p): the slope rows times kappa,
  // and kappaRow = (D' q) . rows_q~, the rows' generalized force on the part's stretch.
  void scatterStretched(const Kinematics& k, const Vector10& rows, LayoutVector& rL, double* rp,
                        double& kappaRow) const {
    if (!stretched()) {
      kappaRow = 0.0;
      scatterRows(rows, k.e, rL, rp);
      return;
    }
    const double kappa = stretch_[k.e].kappa;
    kappaRow = StretchedElement::slopes(k.q).dot(rows.template head<8>()) / kappa;  // D' q = D' q~ / kappa
    Vector10 out = rows;
    out.template head<8>() = StretchedElement::scaled(kappa, rows.template head<8>());
    scatterRows(out, k.e, rL, rp);
  }
  // The Newton block of a stretched element over (q 8, pA, pB, kappa) from its rows and block m in
  // (q~ 8, pA, pB) (element/part_stretch.hpp, the terms in kappa_dot and kappa_ddot left out).
  void stretchedBlock(const Kinematics& k, const Vector10& rows, const Matrix10& m, double cq,
                      Eigen::Matrix<double, 11, 11>& out) const {
    const double kappa = stretch_[k.e].kappa;
    Vector10 z = Vector10::Zero();
    z.template head<8>() = k.q / kappa;  // only its slopes are read: D' q
    StretchedElement::matrixAtRest(kappa, z, rows, m, cq, out);
  }
  // The section at mesh point x of element e with the material's velocity (the section at the
  // material rates) and the material's axial force, strain-rate damping included:
  // EA (|r'|/lambda - 1 - eps0) + the damping of the material element at the material rates.
  Status materialSection(const Vector& q, const Vector& v, int e, double x, typename Element::Section& s) const {
    const Kinematics k = kinematics(q, v, e);
    const Status st = element_[e].section(k.q, k.rates, x, s);
    if (st == Status::kOk) s.axialForce = s.axialForce + axialStiffness_ * s.slope.norm() * (1.0 / k.lambda - 1.0);
    return st;
  }

  // ---- rows and blocks ---------------------------------------------------------------------------
  // The element's own rows in the order (q 8, pA, pB) at accelerations `acceleration` (the static
  // solve: its stabilizer's) with gravity times gravityFactor and, when `coefficients` is given,
  // c_a dE/da + c_q dE/dq + c_v dE/dv in `matrix`.
  Status elementRows(const Kinematics& k, const Vector& acceleration, double gravityFactor,
                     const IntegratorCoefficients* coefficients, Vector10& rows, Matrix10* matrix) const {
    const int e = k.e;
    const bool jacobian = coefficients != nullptr;
    if (!(k.lambda > 0.0)) return isFinite(k.lambda) ? Status::kDegenerateState : Status::kNonFiniteValue;
    EulerianFlowTerms inertia;
    Vector8 qDDot = gatherElement(acceleration, e);
    double dampingScale = 1.0;
    if (stretched()) {
      // q~_ddot = D q_ddot + 2 kappa_dot D' q_dot + kappa_ddot D' q, with D' q = D' q~ / kappa and
      // D' q_dot = D'(q~_dot - kappa_dot D' q) / kappa; the drawn element's damping is kappa times
      // the stretched one's (docs/model_moving_stations.md).
      const PartStretch& st = stretch_[e];
      const Vector8 slopes = StretchedElement::slopes(k.q) / st.kappa;
      const Vector8 slopeRates = (StretchedElement::slopes(k.v) - st.rate * slopes) / st.kappa;
      qDDot = StretchedElement::scaled(st.kappa, qDDot) + (2.0 * st.rate) * slopeRates + st.acceleration * slopes;
      dampingScale = 1.0 / st.kappa;
    }
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
    if (stretched()) damped *= dampingScale;
    const Vector8 gravity = gravityFactor * element_[e].gravityForce();
    const double invL = 1.0 / length_[e];
    const double sign[2] = {-invL, invL};  // d lambda / d p_a
    rows = inertia.force + elastic;
    rows.template head<8>() += damped - k.lambda * gravity;
    const double potential = gravity.dot(k.q);  // -dV/dlambda
    for (int n = 0; n < 2; ++n)
      rows(8 + n) += -damped.dot(k.nodalSlopeRates[n]) / k.lambda - sign[n] * potential;
    if (!jacobian) return Status::kOk;
    const IntegratorCoefficients& c = *coefficients;
    Matrix10& m = *matrix;
    m = c.massFactor * inertia.byAcceleration + c.stiffnessFactor * (inertia.byPosition + elasticStiffness) +
        c.dampingFactor * inertia.byVelocity;
    for (int n = 0; n < 2; ++n) {
      m.template block<8, 1>(0, 8 + n) -= c.stiffnessFactor * sign[n] * gravity;
      m.template block<1, 8>(8 + n, 0) -= c.stiffnessFactor * sign[n] * gravity.transpose();
    }
    Matrix10 dampingMatrix;
    materialForceMatrix<0>(k, nodalSlope_[e], length_[e], damped, dampedStiffness, damping, c.stiffnessFactor,
                           c.dampingFactor, dampingMatrix);
    if (stretched()) dampingMatrix *= dampingScale;  // damped was scaled above: its derivatives here
    m += dampingMatrix;
    return Status::kOk;
  }
  // A force F on the element's material (a contact pair's) as rows (q 8, pA, pB).
  static Vector10 materialRows(const Kinematics& k, const Vector8& force) {
    Vector10 rows;
    rows.template head<8>() = force;
    for (int n = 0; n < 2; ++n) rows(8 + n) = -force.dot(k.nodalSlopeRates[n]) / k.lambda;
    return rows;
  }
  // The Newton block of a force F on the material with a pulley's 3 unknowns (ContactPair's
  // forces, fq and fv its Jacobians): rows and columns (q 8, the pulley's x, y, phi, pA, pB).
  // bySpeed: the force's derivatives by the nodes' mesh speeds (the carried anchors').
  template <class Block, class Force, class Jacobian>
  void pairBlock(const Kinematics& k, const Force& force, const Jacobian& fq, const Jacobian& fv,
                 const Eigen::Matrix<double, 11, 2>& bySpeed, const IntegratorCoefficients& c, Block& block) const {
    materialForceMatrix<3>(k, nodalSlope_[k.e], length_[k.e], force, fq, fv, c.stiffnessFactor, c.dampingFactor,
                           block, &bySpeed);
  }
  static void scatterRows(const Vector10& rows, int e, LayoutVector& rL, double* rp) {
    Layout::scatter(Vector8(rows.template head<8>()), e, nextNode(e), rL);
    rp[e] += rows(8);
    rp[nextNode(e)] += rows(9);
  }
  // The system coordinates of element e's rows (q 8, pA, pB).
  static void localIndices(int e, int* index) {
    const int b = nextNode(e);
    for (int i = 0; i < 4; ++i) {
      index[i] = 4 * e + i;
      index[4 + i] = 4 * b + i;
    }
    index[8] = materialDof(e);
    index[9] = materialDof(b);
  }
  // Every node on its start tangent t: its first row becomes m t.r_dot / c_v (velocity level,
  // scaled like the prescribed rows; static, `locks` given: m t.(r - r_lock)), its second the
  // normal force n.(r_x, r_y) of nodeForce, the node's rows before the prescribed rows replaced any.
  // Moving stations (stationMotion given): the node follows its station along t, so the first row
  // becomes m (t.r_dot - sigma_dot) / c_v (static: m (t.(r - r_lock) - (sigma - sigma_lock))),
  // stationMotion[i] holding sigma_dot (static: sigma - sigma_lock).
  void replaceNodeRows(const LayoutVector& q, const LayoutVector& v, const LayoutVector* locks, double dampingFactor,
                       double lumpedNodeMass, const Vector2 (&nodeForce)[NE], LayoutVector& r,
                       const double* stationMotion = nullptr) const {
    for (int i = 0; i < NE; ++i) {
      const Vector2& t = tangent_[i];
      if (locks)
        r(4 * i) = lumpedNodeMass * (t(0) * (q(4 * i) - (*locks)(4 * i)) + t(1) * (q(4 * i + 1) - (*locks)(4 * i + 1)));
      else
        r(4 * i) = lumpedNodeMass * (t(0) * v(4 * i) + t(1) * v(4 * i + 1)) / dampingFactor;
      if (stationMotion != nullptr)
        r(4 * i) -= lumpedNodeMass * stationMotion[i] / (locks ? 1.0 : dampingFactor);
      r(4 * i + 1) = -t(1) * nodeForce[i](0) + t(0) * nodeForce[i](1);
    }
  }

 private:
  double length_[NE] = {};  // mesh lengths, m
  double contactScale_[NE] = {};  // an element's contact values over those of setUp's contact
  EulerianCable2D cable_[NE];
  Element element_[NE];
  EulerianFlowInertia flow_[NE];
  MaterialVelocity material_[NE];
  Matrix8 nodalSlope_[NE][2];
  SegmentShapeTable<NCS> shapeTable_[NE];
  Vector2 tangent_[NE];       // every node's start tangent (unit): its velocity row's direction
  double beltLength_ = 0.0;   // the belt's reference length, m
  double axialStiffness_ = 0.0;  // EA, N
  PartStretch stretch_[NE];      // each element's part's stretch (read when stretched_)
  bool stretched_ = false;
};

}  // namespace beltsim
