// Inertia of the belt material in an element of the eulerian belt (the eulerian mesh,
// docs/model_element.md §2.11): the mesh parameter x in [0, L] stands still, the material coordinate p is
// linear along the element between its nodes' unknowns pA and pB.
//
// With N_A = 1 - x/L, N_B = x/L, the stretch lambda = (pB - pA)/L and the rate of the material
// coordinate at a mesh point pi(x) = pA_dot N_A + pB_dot N_B, the material passes a mesh point at
// w = -pi/lambda (mesh length per second), so its velocity is u = r_dot + w r' and the kinetic
// energy of the material in the element (rho A per reference length, dp = lambda dx) is
//   T = 1/2 int rhoA lambda |u|^2 dx
//     = lambda/2 q_dot^T M q_dot - sum_a pa_dot q_dot^T G_a q + 1/(2 lambda) sum_ab pa_dot pb_dot h_ab,
//   M = int rhoA S^T S dx,  G_a = int rhoA N_a S^T S' dx,  H_ab = int rhoA N_a N_b S'^T S' dx,
//   h_ab = q^T H_ab q.
// (q, pA, pB) describe the material of a closed belt completely, so the inertia rows are
// Lagrange's E = d/dt dT/dz_dot - dT/dz (LHS sign, docs/model_element.md §0.2), with lambda_dot =
// (pB_dot - pA_dot)/L and s_A = -1, s_B = +1:
//   E_q = lambda M q_ddot - sum_a pa_ddot G_a q + lambda_dot M q_dot - sum_a pa_dot (G_a - G_a^T) q_dot
//         - (1/lambda) sum_ab pa_dot pb_dot H_ab q
//   E_a = -(G_a q).q_ddot + (1/lambda) sum_b h_ab pb_ddot - q_dot^T G_a q_dot
//         - (lambda_dot/lambda^2) sum_b pb_dot h_ab + (2/lambda) sum_b pb_dot q_dot^T H_ab q
//         - (s_a/L) [1/2 q_dot^T M q_dot - 1/(2 lambda^2) sum_bc pb_dot pc_dot h_bc].
// Their derivatives by (q_ddot, p_ddot), (q_dot, p_dot) and (q, p) are written out below (checked
// against central differences in tests/host/test_eulerian_cable.cpp). With lambda = 1 and pA_dot =
// pB_dot = -v this is the one-transport-coordinate inertia of §2.10 up to end terms that cancel
// on assembly of a closed belt.
//
// The integrands are polynomials of degree <= 6: the 4-point Gauss-Legendre rule is exact. The
// matrices are 4x4 scalar parts (x) I2. Fixed size, no heap, bounded loops.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/quadrature.hpp"

namespace beltsim {

// Indices 0..7: the element coordinates; 8, 9: the nodes' material coordinates pA, pB.
struct EulerianFlowTerms {
  using Vector10 = Eigen::Matrix<double, 10, 1>;
  using Matrix10 = Eigen::Matrix<double, 10, 10>;
  Vector10 force;            // E above (LHS) [N, N m; N on the material coordinates]
  Matrix10 byAcceleration;   // dE/d(q_ddot, p_ddot): the configuration-dependent mass matrix
  Matrix10 byPosition;       // dE/d(q, p)
  Matrix10 byVelocity;       // dE/d(q_dot, p_dot)
};

class EulerianFlowInertia {
 public:
  using Vector2 = Eigen::Matrix<double, 2, 1>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Matrix4 = Eigen::Matrix<double, 4, 4>;
  using Vector10 = EulerianFlowTerms::Vector10;

  // length: the element's mesh length L [m]; massPerLength: rho A per reference length [kg/m].
  ParameterError setUp(double length, double massPerLength) {
    ready_ = false;
    if (!isFinite(length) || !(length > 0.0)) return ParameterError::invalid("length");
    if (!isFinite(massPerLength) || !(massPerLength >= 0.0)) return ParameterError::invalid("massPerLength");
    length_ = length;
    m_.setZero();
    for (int a = 0; a < 2; ++a) {
      g_[a].setZero();
      for (int b = 0; b < 2; ++b) h_[a][b].setZero();
    }
    const double half = 0.5 * length;
    for (int i = 0; i < kGaussLegendre4.kPoints; ++i) {
      const double x = half * (1.0 + kGaussLegendre4.points[i]);
      const double w = half * kGaussLegendre4.weights[i] * massPerLength;
      const double n[2] = {1.0 - x / length, x / length};
      const HermiteShape<double> s = HermiteShape<double>::at(x, length);
      point_[i] = Point{s.s, s.ds, w, {n[0], n[1]}};
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
          m_(j, k) += w * s.s(j) * s.s(k);
          for (int a = 0; a < 2; ++a) {
            g_[a](j, k) += w * n[a] * s.s(j) * s.ds(k);
            for (int b = 0; b < 2; ++b) h_[a][b](j, k) += w * n[a] * n[b] * s.ds(j) * s.ds(k);
          }
        }
    }
    ready_ = true;
    return ParameterError::success();
  }

  const Matrix4& mass() const { return m_; }
  const Matrix4& flowMass(int a) const { return g_[a]; }                 // G_a
  const Matrix4& slopeMass(int a, int b) const { return h_[a][b]; }      // H_ab

  static Vector8 apply(const Matrix4& a, const Vector8& x) { return HermiteShape<double>::applyPerComponent(a, x); }

  // T [J] at (q, q_dot) and the nodes' material coordinates p = (pA, pB) and rates.
  double kineticEnergy(const Vector8& q, const Vector8& qDot, const Vector2& p, const Vector2& pDot) const {
    const double lambda = (p(1) - p(0)) / length_;
    double t = 0.5 * lambda * qDot.dot(apply(m_, qDot));
    for (int a = 0; a < 2; ++a) {
      t -= pDot(a) * qDot.dot(apply(g_[a], q));
      for (int b = 0; b < 2; ++b) t += 0.5 / lambda * pDot(a) * pDot(b) * q.dot(apply(h_[a][b], q));
    }
    return t;
  }

  // E alone, for the residual: the terms of the header as one loop over the quadrature points.
  // With the matrices' integrals written out (x^T G_a y = int rhoA N_a (S x).(S' y), ...) and, at a
  // point, pi = sum_a pa_dot N_a, pi'' = sum_a pa_ddot N_a and the interpolated r_ddot, r_dot, r',
  // r_dot' (S or S' applied to q_ddot, q_dot, q):
  //   E_q = int rhoA { S^T [lambda r_ddot + lambda_dot r_dot - pi'' r' - pi r_dot']
  //                  + S'^T [pi r_dot - (pi^2/lambda) r'] } dx
  //   E_a = int rhoA N_a [-r'.r_ddot + (pi''/lambda) |r'|^2 - r_dot.r_dot' - (lambda_dot/lambda^2) pi |r'|^2
  //                       + (2/lambda) pi r_dot'.r'] dx
  //         - (s_a/L) int rhoA [1/2 |r_dot|^2 - pi^2/(2 lambda^2) |r'|^2] dx.
  // The same integrands of degree <= 6, the same 4-point rule: equal to the matrix form (evaluate's
  // derivatives are those of this sum) in about a third of its operations.
  Status force(const Vector8& q, const Vector8& qDot, const Vector8& qDDot, const Vector2& p, const Vector2& pDot,
               const Vector2& pDDot, Vector10& out) const {
    out.setZero();
    if (!ready_) return Status::kInvalidParameter;
    const double lambda = (p(1) - p(0)) / length_;
    if (!isFinite(lambda)) return Status::kNonFiniteValue;
    if (!(lambda > 0.0)) return Status::kDegenerateState;
    const double il = 1.0 / lambda;
    const double invL = 1.0 / length_;
    const double lambdaDot = (pDot(1) - pDot(0)) * invL;
    double material[2] = {0.0, 0.0};  // the integrals of E_A, E_B above
    double kinetic = 0.0;             // the last integral
    for (int i = 0; i < kGaussLegendre4.kPoints; ++i) {
      const Point& at = point_[i];
      const Vector2 rDDot = HermiteShape<double>::interpolate(at.shape, qDDot);
      const Vector2 rDot = HermiteShape<double>::interpolate(at.shape, qDot);
      const Vector2 slope = HermiteShape<double>::interpolate(at.slope, q);
      const Vector2 slopeDot = HermiteShape<double>::interpolate(at.slope, qDot);
      const double pi = pDot(0) * at.n[0] + pDot(1) * at.n[1];
      const double piDDot = pDDot(0) * at.n[0] + pDDot(1) * at.n[1];
      const double flow = pi * pi * il;
      double byShape[2], bySlope[2];  // times the weight
      for (int c = 0; c < 2; ++c) {
        byShape[c] = at.weight * (lambda * rDDot[c] + lambdaDot * rDot[c] - piDDot * slope[c] - pi * slopeDot[c]);
        bySlope[c] = at.weight * (pi * rDot[c] - flow * slope[c]);
      }
      for (int j = 0; j < 4; ++j)
        for (int c = 0; c < 2; ++c) out(2 * j + c) += at.shape(j) * byShape[c] + at.slope(j) * bySlope[c];
      const double slope2 = slope[0] * slope[0] + slope[1] * slope[1];
      const double slopeRDDot = slope[0] * rDDot[0] + slope[1] * rDDot[1];
      const double rDotSlopeDot = rDot[0] * slopeDot[0] + rDot[1] * slopeDot[1];
      const double slopeSlopeDot = slope[0] * slopeDot[0] + slope[1] * slopeDot[1];
      const double along = at.weight * (-slopeRDDot + il * (piDDot - lambdaDot * il * pi) * slope2 - rDotSlopeDot +
                                        2.0 * il * pi * slopeSlopeDot);
      material[0] += at.n[0] * along;
      material[1] += at.n[1] * along;
      kinetic += at.weight * 0.5 * (rDot[0] * rDot[0] + rDot[1] * rDot[1] - il * flow * slope2);
    }
    out(8) = material[0] + invL * kinetic;  // s_A / L = -1/L
    out(9) = material[1] - invL * kinetic;
    for (int i = 0; i < 10; ++i)
      if (!isFinite(out(i))) return Status::kNonFiniteValue;
    return Status::kOk;
  }

  // E (force() above) and its derivatives.
  Status evaluate(const Vector8& q, const Vector8& qDot, const Vector8& qDDot, const Vector2& p, const Vector2& pDot,
                  const Vector2& pDDot, EulerianFlowTerms& out) const {
    out.byAcceleration.setZero();
    out.byPosition.setZero();
    out.byVelocity.setZero();
    const Status status = force(q, qDot, qDDot, p, pDot, pDDot, out.force);
    if (status != Status::kOk) return status;
    const double lambda = (p(1) - p(0)) / length_;
    const double il = 1.0 / lambda, il2 = il * il, il3 = il2 * il;
    const double invL = 1.0 / length_;
    const double sign[2] = {-invL, invL};  // d lambda / d p_a
    const double lambdaDot = (pDot(1) - pDot(0)) * invL;
    const Vector8 mqDot = apply(m_, qDot), mqDDot = apply(m_, qDDot);
    Vector8 gq[2], gqDot[2], gtqDot[2], gtqDDot[2], hq[2][2], hqDot[2][2];
    double h[2][2], hDot[2][2];
    for (int a = 0; a < 2; ++a) {
      const Matrix4 gt = g_[a].transpose();
      gq[a] = apply(g_[a], q);
      gqDot[a] = apply(g_[a], qDot);
      gtqDot[a] = apply(gt, qDot);
      gtqDDot[a] = apply(gt, qDDot);
      for (int b = 0; b < 2; ++b) {
        hq[a][b] = apply(h_[a][b], q);
        hqDot[a][b] = apply(h_[a][b], qDot);
        h[a][b] = q.dot(hq[a][b]);
        hDot[a][b] = qDot.dot(hq[a][b]);
      }
    }
    // sum_bc pb_dot pc_dot h_bc and its q-gradient / 2 (H symmetric).
    double hh = 0.0;
    Vector8 hhq = Vector8::Zero();
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 2; ++c) {
        hh += pDot(b) * pDot(c) * h[b][c];
        hhq += pDot(b) * pDot(c) * hq[b][c];
      }

    // ---- element rows E_q ----
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k)
        for (int d = 0; d < 2; ++d) {
          const int r = 2 * j + d, s = 2 * k + d;
          double byQ = 0.0, byQDot = lambdaDot * m_(j, k);
          for (int a = 0; a < 2; ++a) {
            byQ -= pDDot(a) * g_[a](j, k);
            byQDot -= pDot(a) * (g_[a](j, k) - g_[a](k, j));
            for (int b = 0; b < 2; ++b) byQ -= il * pDot(a) * pDot(b) * h_[a][b](j, k);
          }
          out.byAcceleration(r, s) = lambda * m_(j, k);
          out.byPosition(r, s) = byQ;
          out.byVelocity(r, s) = byQDot;
        }
    const Vector8 eqByLambda = mqDDot + il2 * hhq;
    for (int a = 0; a < 2; ++a) {
      Vector8 hpDot = Vector8::Zero();  // sum_b pb_dot H_ab q
      for (int b = 0; b < 2; ++b) hpDot += pDot(b) * hq[a][b];
      out.byAcceleration.block<8, 1>(0, 8 + a) = -gq[a];
      out.byVelocity.block<8, 1>(0, 8 + a) = sign[a] * mqDot - (gqDot[a] - gtqDot[a]) - 2.0 * il * hpDot;
      out.byPosition.block<8, 1>(0, 8 + a) = sign[a] * eqByLambda;
    }

    // ---- material-coordinate rows E_a ----
    for (int a = 0; a < 2; ++a) {
      double hp = 0.0, hpDDot = 0.0, hDotP = 0.0;  // sum_b pb_dot h_ab, sum_b pb_ddot h_ab, sum_b pb_dot q_dot^T H_ab q
      Vector8 hpq = Vector8::Zero(), hppq = Vector8::Zero(), hpqDot = Vector8::Zero();
      for (int b = 0; b < 2; ++b) {
        hp += pDot(b) * h[a][b];
        hpDDot += pDDot(b) * h[a][b];
        hDotP += pDot(b) * hDot[a][b];
        hpq += pDot(b) * hq[a][b];
        hppq += pDDot(b) * hq[a][b];
        hpqDot += pDot(b) * hqDot[a][b];
      }
      out.byAcceleration.block<1, 8>(8 + a, 0) = -gq[a].transpose();
      out.byVelocity.block<1, 8>(8 + a, 0) = (-(gqDot[a] + gtqDot[a]) + 2.0 * il * hpq - sign[a] * mqDot).transpose();
      out.byPosition.block<1, 8>(8 + a, 0) =
          (-gtqDDot[a] + 2.0 * il * hppq - 2.0 * lambdaDot * il2 * hpq + 2.0 * il * hpqDot + sign[a] * il2 * hhq)
              .transpose();
      const double byLambda =
          -il2 * hpDDot + 2.0 * lambdaDot * il3 * hp - 2.0 * il2 * hDotP - sign[a] * il3 * hh;
      for (int c = 0; c < 2; ++c) {
        double hc = 0.0;  // sum_b pb_dot h_bc
        for (int b = 0; b < 2; ++b) hc += pDot(b) * h[b][c];
        out.byAcceleration(8 + a, 8 + c) = il * h[a][c];
        out.byVelocity(8 + a, 8 + c) =
            -sign[c] * il2 * hp - lambdaDot * il2 * h[a][c] + 2.0 * il * hDot[a][c] + sign[a] * il2 * hc;
        out.byPosition(8 + a, 8 + c) = sign[c] * byLambda;
      }
    }
    return Status::kOk;
  }

 private:
  // A quadrature point of force(): S and S' there, the weight with rho A [kg], N_A and N_B.
  struct Point {
    Eigen::Matrix<double, 4, 1> shape, slope;
    double weight;
    double n[2];
  };

  double length_ = 1.0;
  Point point_[kGaussLegendre4.kPoints] = {};
  Matrix4 m_ = Matrix4::Zero();
  Matrix4 g_[2] = {Matrix4::Zero(), Matrix4::Zero()};
  Matrix4 h_[2][2] = {{Matrix4::Zero(), Matrix4::Zero()}, {Matrix4::Zero(), Matrix4::Zero()}};
  bool ready_ = false;
};

}  // namespace beltsim
