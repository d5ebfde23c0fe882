// The Newton matrix of a drive against central differences of its residual along the integrator's
// consistent update (q += d, v += gamma' d, a += beta' d): the tests of the eulerian drives
// (tests/host/test_eulerian_drive.cpp, tests/host/test_eulerian_arm_drive.cpp). Test-side code.
#pragma once
#include "beltsim/stepping/integrator_coefficients.hpp"
#include "beltsim/stepping/system_interface.hpp"

namespace beltsim::test {

// For every unknown j that skip(j) leaves in, the solve (with the drive's factorized matrix) of
// the central difference of the residual, step eps, is e_j back: returns the worst entry of the
// difference over all such columns and its column; -1 in worstColumn if a residual or solve failed.
template <class Drive, class V, class Skip>
double worstNewtonColumn(Drive& drive, const V& q, const V& v, const V& a, double t, const IntegratorCoefficients& c,
                         Skip skip, int& worstColumn, double eps = 1e-7) {
  double worst = 0.0;
  worstColumn = -1;
  for (int j = 0; j < V::RowsAtCompileTime; ++j) {
    if (skip(j)) continue;
    V qp = q, vp = v, ap = a, qm = q, vm = v, am = a;
    qp(j) += eps;
    vp(j) += c.velocityFactor * eps;
    ap(j) += c.accelerationFactor * eps;
    qm(j) -= eps;
    vm(j) -= c.velocityFactor * eps;
    am(j) -= c.accelerationFactor * eps;
    V rp, rm, column;
    if (drive.residual(IterationPoint<V>{&qp, &vp, &ap, t, &c}, rp) != Status::kOk ||
        drive.residual(IterationPoint<V>{&qm, &vm, &am, t, &c}, rm) != Status::kOk ||
        drive.solve(V((rp - rm) / (2.0 * eps)), column) != Status::kOk) {
      worstColumn = -1;
      return 1e300;
    }
    column(j) -= 1.0;
    if (column.cwiseAbs().maxCoeff() > worst) {
      worst = column.cwiseAbs().maxCoeff();
      worstColumn = j;
    }
  }
  return worst;
}

}  // namespace beltsim::test
