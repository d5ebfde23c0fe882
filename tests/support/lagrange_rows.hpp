// Lagrange's equations of a kinetic energy by central differences, the reference the inertia rows
// of the eulerian element are checked against (tests/host/test_eulerian_cable.cpp,
// tests/host/test_moving_stations.cpp): E = d/dt dT/dz_dot - dT/dz at (z, z_dot, z_ddot), with
// dT/dz_dot by central differences (exact: T is quadratic in the rates), its time derivative along
// z(t) = z + z_dot t + z_ddot t^2 / 2 by central differences in t, and dT/dz by central differences.
#pragma once
#include <Eigen/Core>

namespace beltsim::test {

template <int N, typename Kinetic>
Eigen::Matrix<double, N, 1> lagrangeRows(const Kinetic& kinetic, const Eigen::Matrix<double, N, 1>& z,
                                         const Eigen::Matrix<double, N, 1>& zDot,
                                         const Eigen::Matrix<double, N, 1>& zDDot) {
  using Vector = Eigen::Matrix<double, N, 1>;
  auto momentum = [&](const Vector& at, const Vector& rates) {
    Vector m;
    for (int i = 0; i < N; ++i) {
      Vector up = rates, down = rates;
      up(i) += 1e-3;
      down(i) -= 1e-3;
      m(i) = (kinetic(at, up) - kinetic(at, down)) / 2e-3;
    }
    return m;
  };
  const double dt = 1e-5;
  const Vector later = momentum(z + dt * zDot + 0.5 * dt * dt * zDDot, zDot + dt * zDDot);
  const Vector earlier = momentum(z - dt * zDot + 0.5 * dt * dt * zDDot, zDot - dt * zDDot);
  Vector rows = (later - earlier) / (2 * dt);
  for (int i = 0; i < N; ++i) {
    Vector up = z, down = z;
    up(i) += 1e-7;
    down(i) -= 1e-7;
    rows(i) -= (kinetic(up, zDot) - kinetic(down, zDot)) / 2e-7;
  }
  return rows;
}

}  // namespace beltsim::test
