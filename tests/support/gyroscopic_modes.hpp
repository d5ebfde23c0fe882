// Transverse modes of a travelling span from its linearised gyroscopic eigenproblem
// M x'' + G x' + K x = 0 (tests/host/test_flow_through_belt.cpp and test_eulerian_cable.cpp: the
// Wickert-Mote check of both standing meshes). The matrices cover every unknown; `free` lists the
// unknowns that are not held; `across(dof)` says whether an unknown moves the span across (y, y')
// rather than along it. A mode counts as transverse if its across components carry more than 100
// times the squared modulus of the others.
#pragma once
#include <Eigen/Dense>
#include <algorithm>
#include <complex>
#include <utility>
#include <vector>

namespace beltsim::test {

struct TransverseModes {
  std::vector<double> omega;   // transverse frequencies, ascending [rad/s]
  double firstModeTurn = 0.0;  // arg x(threeQuarterDof) - arg x(quarterDof) of the lowest one [rad]
};

template <class Across>
TransverseModes transverseModes(const Eigen::MatrixXd& M, const Eigen::MatrixXd& G, const Eigen::MatrixXd& K,
                                const std::vector<int>& free, Across across, int quarterDof, int threeQuarterDof) {
  const int m = static_cast<int>(free.size());
  Eigen::MatrixXd Mf(m, m), Gf(m, m), Kf(m, m);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      Mf(i, j) = M(free[i], free[j]);
      Gf(i, j) = G(free[i], free[j]);
      Kf(i, j) = K(free[i], free[j]);
    }
  const Eigen::MatrixXd minv = Mf.inverse();
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(2 * m, 2 * m);
  A.topRightCorner(m, m).setIdentity();
  A.bottomLeftCorner(m, m) = -minv * Kf;
  A.bottomRightCorner(m, m) = -minv * Gf;
  Eigen::EigenSolver<Eigen::MatrixXd> solver(A, true);
  const auto where = [&](int dof) { return static_cast<int>(std::find(free.begin(), free.end(), dof) - free.begin()); };
  std::vector<std::pair<double, double>> transverse;  // (omega, turn)
  for (int i = 0; i < 2 * m; ++i) {
    const std::complex<double> root = solver.eigenvalues()(i);
    if (root.imag() <= 0.0) continue;
    const Eigen::VectorXcd x = solver.eigenvectors().col(i).head(m);
    double acrossSum = 0.0, alongSum = 0.0;
    for (int j = 0; j < m; ++j) (across(free[j]) ? acrossSum : alongSum) += std::norm(x(j));
    if (!(acrossSum > 100.0 * alongSum)) continue;
    transverse.emplace_back(root.imag(), std::arg(x(where(threeQuarterDof)) / x(where(quarterDof))));
  }
  std::sort(transverse.begin(), transverse.end());
  TransverseModes out;
  for (const auto& t : transverse) out.omega.push_back(t.first);
  if (!transverse.empty()) out.firstModeTurn = transverse.front().second;
  return out;
}

}  // namespace beltsim::test
