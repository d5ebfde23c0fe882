// Inertia of belt material that flows through a planar ANCF cable element whose mesh stands still
// (the non-material, "Eulerian" belt with one transport coordinate; docs/model_element.md §2.10).
//
// The mesh parameter x in [0, L] is fixed in time; the whole belt's material slides through the
// mesh by the transport coordinate sigma (m of reference length), v = sigma_dot [m/s of reference
// length; the spatial speed is v |r'|]. At a mesh point the material velocity and acceleration are
//   u = r_dot + v r',      a = r_ddot + 2 v r_dot' + v^2 r'' + v_dot r'.
// Virtual work of the inertia with the test motions S dq (mesh coordinates) and r' dsigma (the
// material sliding along its own path) gives, per element (LHS sign, docs/model_element.md §0.2):
//   element rows   M q_ddot + c v_dot + 2 v M1 q_dot + v^2 (B1 - M2) q
//   transport row  c^T q_ddot + m_vv v_dot + 2 v q_dot^T M2 q + v^2/2 q^T B2 q
// with  c = M1 q = int rhoA S^T r' dx,  m_vv = q^T M2 q = int rhoA r'.r' dx,
//       M1 = int rhoA S^T S' dx,  M2 = int rhoA S'^T S' dx   (int S^T S'' by parts:
//       B1 - M2),  B1 = rhoA [S^T S']_0^L,  B2 = rhoA [S'^T S']_0^L.
// The end terms B1, B2 carry momentum across the element's ends; in a closed belt (position and
// slope shared by neighbours) they cancel on assembly, node by node, exactly.
// Kinetic energy of the material in the element: 1/2 int rhoA |u|^2 dx
//   = 1/2 q_dot^T M q_dot + v q_dot^T M1 q + v^2/2 q^T M2 q.
//
// The integrands are polynomials of degree <= 5 in x: the 3-point Gauss-Legendre rule is exact.
// All matrices are the Kronecker product of a 4x4 scalar matrix with the 2x2 identity; only the
// 4x4 parts are stored. Real-time rules as for the element: fixed size, no heap, bounded loops.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/quadrature.hpp"

namespace beltsim {

// The inertia terms of one element at one state, and their derivatives. Index 8 is the transport
// coordinate (sigma, v, v_dot); indices 0..7 are the element coordinates.
struct FlowThroughTerms {
  using Vector9 = Eigen::Matrix<double, 9, 1>;
  using Matrix9 = Eigen::Matrix<double, 9, 9>;
  Vector9 force;         // the inertia rows above (LHS) [N, N m; transport row N]
  Matrix9 byAcceleration;  // d force / d(q_ddot, v_dot): the configuration-dependent mass matrix
  Matrix9 byPosition;      // d force / d(q, sigma) (sigma column is 0: the belt is cyclic in it)
  Matrix9 byVelocity;      // d force / d(q_dot, v)
};

class FlowThroughInertia {
 public:
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Matrix4 = Eigen::Matrix<double, 4, 4>;

  // length: reference (mesh-parameter) length of the element [m]; massPerLength: rho A per
  // reference length [kg/m].
  ParameterError setUp(double length, double massPerLength) {
    ready_ = false;
    if (!isFinite(length) || !(length > 0.0)) return ParameterError::invalid("length");
    if (!isFinite(massPerLength) || !(massPerLength >= 0.0))
      return ParameterError::invalid("massPerLength");
    m_.setZero();
    m1_.setZero();
    m2_.setZero();
    const double half = 0.5 * length;
    for (int i = 0; i < kGaussLegendre3.kPoints; ++i) {
      const double x = half * (1.0 + kGaussLegendre3.points[i]);
      const double w = half * kGaussLegendre3.weights[i] * massPerLength;
      const HermiteShape<double> h = HermiteShape<double>::at(x, length);
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
          m1_(j, k) += w * h.s(j) * h.ds(k);
          m2_(j, k) += w * h.ds(j) * h.ds(k);
        }
    }
    // M (degree 6) needs 4 points; it is the element's consistent mass matrix (docs/model_element.md §2.3).
    for (int i = 0; i < kGaussLegendre4.kPoints; ++i) {
      const double x = half * (1.0 + kGaussLegendre4.points[i]);
      const double w = half * kGaussLegendre4.weights[i] * massPerLength;
      const HermiteShape<double> h = HermiteShape<double>::at(x, length);
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) m_(j, k) += w * h.s(j) * h.s(k);
    }
    const HermiteShape<double> a = HermiteShape<double>::at(0.0, length);
    const HermiteShape<double> b = HermiteShape<double>::at(length, length);
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        b1_(j, k) = massPerLength * (b.s(j) * b.ds(k) - a.s(j) * a.ds(k));
        b2_(j, k) = massPerLength * (b.ds(j) * b.ds(k) - a.ds(j) * a.ds(k));
      }
    ready_ = true;
    return ParameterError::success();
  }

  // The 4x4 scalar parts (rows: shape function j, columns: k); the 8x8 matrices are these (x) I2.
  const Matrix4& mass() const { return m_; }
  const Matrix4& flowMass1() const { return m1_; }  // M1
  const Matrix4& flowMass2() const { return m2_; }  // M2

  // (A (x) I2) x for a 4x4 scalar part A.
  static Vector8 apply(const Matrix4& a, const Vector8& x) { return HermiteShape<double>::applyPerComponent(a, x); }

  // The terms of the header at (q, q_dot, q_ddot; v, v_dot) and their derivatives.
  Status evaluate(const Vector8& q, const Vector8& qDot, const Vector8& qDDot, double v, double vDot,
                  FlowThroughTerms& out) const {
    out.force.setZero();
    out.byAcceleration.setZero();
    out.byPosition.setZero();
    out.byVelocity.setZero();
    if (!ready_) return Status::kInvalidParameter;
    const Matrix4 curvatureFlow = b1_ - m2_;  // int rhoA S^T S'' dx
    const Vector8 c = apply(m1_, q);          // int rhoA S^T r' dx
    const Vector8 m1qDot = apply(m1_, qDot);
    const Vector8 flowQ = apply(curvatureFlow, q);
    const Vector8 m2q = apply(m2_, q);
    const Vector8 m2qDot = apply(m2_, qDot);
    const Vector8 b2q = apply(b2_, q);
    const Vector8 m1tqDDot = apply(Matrix4(m1_.transpose()), qDDot);
    const Vector8 mqDDot = apply(m_, qDDot);
    const double mvv = q.dot(m2q);
    for (int i = 0; i < 8; ++i)
      out.force(i) = mqDDot(i) + c(i) * vDot + 2.0 * v * m1qDot(i) + v * v * flowQ(i);
    out.force(8) = c.dot(qDDot) + mvv * vDot + 2.0 * v * qDot.dot(m2q) + 0.5 * v * v * q.dot(b2q);
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k)
        for (int d = 0; d < 2; ++d) {
          const int r = 2 * j + d, s = 2 * k + d;
          out.byAcceleration(r, s) = m_(j, k);
          out.byPosition(r, s) = vDot * m1_(j, k) + v * v * curvatureFlow(j, k);
          out.byVelocity(r, s) = 2.0 * v * m1_(j, k);
        }
    for (int i = 0; i < 8; ++i) {
      out.byAcceleration(i, 8) = c(i);
      out.byAcceleration(8, i) = c(i);
      out.byVelocity(i, 8) = 2.0 * m1qDot(i) + 2.0 * v * flowQ(i);
      // M2 and B2 are symmetric.
      out.byPosition(8, i) = m1tqDDot(i) + 2.0 * vDot * m2q(i) + 2.0 * v * m2qDot(i) + v * v * b2q(i);
      out.byVelocity(8, i) = 2.0 * v * m2q(i);
    }
    out.byAcceleration(8, 8) = mvv;
    out.byVelocity(8, 8) = 2.0 * qDot.dot(m2q) + v * q.dot(b2q);
    // The sigma column stays 0. d(c v_dot)/dq = v_dot M1 is in byPosition's 8x8 block above.
    for (int i = 0; i < 9; ++i)
      if (!isFinite(out.force(i))) return Status::kNonFiniteValue;
    return Status::kOk;
  }

  // Kinetic energy of the material in the element, 1/2 int rhoA |r_dot + v r'|^2 dx [J].
  double kineticEnergy(const Vector8& q, const Vector8& qDot, double v) const {
    return 0.5 * qDot.dot(apply(m_, qDot)) + v * qDot.dot(apply(m1_, q)) +
           0.5 * v * v * q.dot(apply(m2_, q));
  }

 private:
  Matrix4 m_ = Matrix4::Zero(), m1_ = Matrix4::Zero(), m2_ = Matrix4::Zero();
  Matrix4 b1_ = Matrix4::Zero(), b2_ = Matrix4::Zero();
  bool ready_ = false;
};

}  // namespace beltsim
