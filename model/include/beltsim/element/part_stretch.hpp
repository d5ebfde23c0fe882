// An eulerian element on a part of the belt's path whose length changes as pulley centres move
// (system/moving_stations.hpp; the plan of issue 75). The part's stretch kappa is its length over
// its drawn length L; its elements keep the tables of their drawn lengths. The element of length
// kappa L at coordinates q = [r_A, r'_A, r_B, r'_B] is the drawn element at
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
  // Rows (q 8, pA, pB) of the drawn element at q~ -> the rows in (q, pA, pB) and the row of kappa.
  static void rows(double kappa, const Vector8& q, const Vector10& drawnRows, Vector10& out, double& kappaRow) {
    out = drawnRows;
    out.template head<8>() = scaled(kappa, drawnRows.template head<8>());
    kappaRow = slopes(q).dot(drawnRows.template head<8>());
  }
};

}  // namespace beltsim
