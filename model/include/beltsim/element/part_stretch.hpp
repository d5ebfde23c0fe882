// An eulerian element on a part of the belt's path whose length changes as pulley centres move
// (system/moving_stations.hpp: a tensioner arm swinging, a pulley on its support springs). The
// part's stretch kappa is its length over its drawn length L; its elements keep the tables of
// their drawn lengths. The element of length kappa L at coordinates q = [r_A, r'_A, r_B, r'_B] is
// the drawn element at
//
//   q~ = D q,   D = diag(1, kappa, 1, kappa) (per 2-vector),
//
// its slopes times kappa: the Hermite shapes of the slopes carry the factor L, so the position at
// each fraction of the element is the same, and the strain, the curvature, the material measure
// and the material's velocity are unchanged (tests/host/test_moving_stations.cpp checks the energies,
// and the rows below against Lagrange's equations and the elastic energy's derivatives).
// With D' = dD/dkappa = diag(0, 1, 0, 1), the rates follow as
//
//   q~_dot = D q_dot + kappa_dot D' q,   q~_ddot = D q_ddot + 2 kappa_dot D' q_dot + kappa_ddot D' q.
//
// (q, kappa) -> q~ is a point transformation, under which Lagrange's equations and generalized forces
// keep their form: with E~ the drawn element's rows in q~ (inertia, elastic, gravity, a force on the
// material), the rows in q and the row of kappa are
//
//   E_q = D E~_q~,   E_p = E~_p,   E_kappa = (D' q) . E~_q~ = r'_A . E~_r'A + r'_B . E~_r'B.
//
// The E_kappa rows of a part's elements, times d kappa / d centre, act on the moving centres. The
// kappa_dot terms of q~_ddot are the material passing the moving stations, in the element's inertia.
//
// Newton block. With P = diag(D, I) and P' = diag(D', 0) on (q 8, pA, pB), s = P' (q, p) (the
// slopes), v = P' (q_dot, p_dot), a = P' (q_ddot, p_ddot), the drawn element's derivatives A, V, K
// by its accelerations, velocities and positions and m = c_a A + c_v V + c_q K, the rows' derivative
// c_a dR/dZ_ddot + c_v dR/dZ_dot + c_q dR/dZ over Z = (q, pA, pB, kappa) is
//   G_z     = m P + kappa_dot (2 c_v A + c_q V) P' + c_q kappa_ddot A P'          (10 x 10)
//   G_kappa = m s + 2 c_v A v + c_q (V v + A a)                                    (10 x 1)
//   rows (q, p):  [P G_z,  P G_kappa + c_q P' E~];   row kappa: [s^T G_z + c_q (P' E~)^T,  s^T G_kappa].
#pragma once
#include <Eigen/Core>

namespace beltsim {

struct PartStretch {
  double kappa = 1.0;         // the part's length over its drawn length
  double rate = 0.0;          // kappa_dot, 1/s
  double acceleration = 0.0;  // kappa_ddot, 1/s^2
};

struct StretchedElement {
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Vector10 = Eigen::Matrix<double, 10, 1>;
  using Matrix10 = Eigen::Matrix<double, 10, 10>;
  using Matrix11 = Eigen::Matrix<double, 11, 11>;

  // q~ = D q.
  static Vector8 scaled(double kappa, const Vector8& q) {
    Vector8 out = q;
    for (int node = 0; node < 2; ++node)
      for (int l = 0; l < 2; ++l) out(4 * node + 2 + l) = kappa * q(4 * node + 2 + l);
    return out;
  }
  // D' q: the slopes alone.
  static Vector8 slopes(const Vector8& q) {
    Vector8 out = Vector8::Zero();
    for (int node = 0; node < 2; ++node)
      for (int l = 0; l < 2; ++l) out(4 * node + 2 + l) = q(4 * node + 2 + l);
    return out;
  }
  // The drawn element's coordinates and their rates.
  static void coordinates(const PartStretch& s, const Vector8& q, const Vector8& qDot, const Vector8& qDDot,
                          Vector8& qScaled, Vector8& qDotScaled, Vector8& qDDotScaled) {
    qScaled = scaled(s.kappa, q);
    qDotScaled = scaled(s.kappa, qDot) + s.rate * slopes(q);
    qDDotScaled = scaled(s.kappa, qDDot) + (2.0 * s.rate) * slopes(qDot) + s.acceleration * slopes(q);
  }
  // P' applied to a 10-vector (q 8, pA, pB): its slopes alone.
  static Vector10 slopes10(const Vector10& x) {
    Vector10 out = Vector10::Zero();
    out.template head<8>() = slopes(x.template head<8>());
    return out;
  }
  // The Newton block over (q 8, pA, pB, kappa) (above) from the drawn element's rows and its
  // derivatives by its accelerations, velocities and positions (10 x 10 over (q~ 8, pA, pB)),
  // at the element's state (q, pA, pB) with their rates and accelerations (10-vectors) and stretch s.
  static void matrix(const PartStretch& s, const Vector10& z, const Vector10& zDot, const Vector10& zDDot,
                     const Vector10& drawnRows, const Matrix10& byAcceleration, const Matrix10& byVelocity,
                     const Matrix10& byPosition, double ca, double cv, double cq, Matrix11& out) {
    Vector10 p = Vector10::Ones();
    for (int node = 0; node < 2; ++node) p(4 * node + 2) = p(4 * node + 3) = s.kappa;
    Vector10 pPrime = Vector10::Zero();
    for (int node = 0; node < 2; ++node) pPrime(4 * node + 2) = pPrime(4 * node + 3) = 1.0;
    const Matrix10 m = ca * byAcceleration + cv * byVelocity + cq * byPosition;
    const Matrix10 g = m * p.asDiagonal() +
                       ((s.rate * (2.0 * cv) + cq * s.acceleration) * byAcceleration + (cq * s.rate) * byVelocity) *
                           pPrime.asDiagonal();
    const Vector10 slope = slopes10(z), v = slopes10(zDot), a = slopes10(zDDot);
    const Vector10 gKappa = m * slope + (2.0 * cv) * (byAcceleration * v) + cq * (byVelocity * v + byAcceleration * a);
    const Vector10 rowsBySlope = slopes10(drawnRows);
    out.template topLeftCorner<10, 10>() = p.asDiagonal() * g;
    out.template block<10, 1>(0, 10) = p.asDiagonal() * gKappa + cq * rowsBySlope;
    out.template block<1, 10>(10, 0) = slope.transpose() * g + cq * rowsBySlope.transpose();
    out(10, 10) = slope.dot(gKappa);
  }
  // The same block with the stretch at rest (kappa_dot = kappa_ddot = 0) from the drawn element's
  // combined block m = c_a A + c_v V + c_q K: the form the drive's Newton matrix takes (the rate
  // terms, of the order of h times the rates, left out).
  static void matrixAtRest(double kappa, const Vector10& z, const Vector10& drawnRows, const Matrix10& m, double cq,
                           Matrix11& out) {
    Vector10 p = Vector10::Ones();
    for (int node = 0; node < 2; ++node) p(4 * node + 2) = p(4 * node + 3) = kappa;
    const Vector10 slope = slopes10(z);
    const Vector10 rowsBySlope = slopes10(drawnRows);
    const Matrix10 g = m * p.asDiagonal();
    const Vector10 gKappa = m * slope;
    out.template topLeftCorner<10, 10>() = p.asDiagonal() * g;
    out.template block<10, 1>(0, 10) = p.asDiagonal() * gKappa + cq * rowsBySlope;
    out.template block<1, 10>(10, 0) = slope.transpose() * g + cq * rowsBySlope.transpose();
    out(10, 10) = slope.dot(gKappa);
  }
  // Rows (q 8, pA, pB) of the drawn element at q~ -> the rows in (q, pA, pB) and the row of kappa.
  static void rows(double kappa, const Vector8& q, const Vector10& drawnRows, Vector10& out, double& kappaRow) {
    out = drawnRows;
    out.template head<8>() = scaled(kappa, drawnRows.template head<8>());
    kappaRow = slopes(q).dot(drawnRows.template head<8>());
  }
};

}  // namespace beltsim
