// Cross-target floating-point identity: a small numeric kernel on Eigen fixed-size types whose
// exact bit patterns are printed as "BITS <name> <hex>" lines. The host preset's test
// `cross_target_bit_identity` compares these lines from host, Cortex-M7 and aarch64 runs.
// Each test here also checks the kernel's result itself, so a wrong kernel cannot pass.
#include <Eigen/Dense>

#include "minitest.hpp"

namespace {

void printBits(const char* name, double value) {
  minitest::print("BITS ");
  minitest::print(name);
  minitest::print(" ");
  minitest::printHexBits(value);
  minitest::print("\n");
}

// A non-symmetric, well-conditioned 4x4 system whose pivoting order is not trivial.
Eigen::Matrix4d kernelMatrix() {
  Eigen::Matrix4d a;
  a << 0.3, 2.0, -1.1, 0.7,
       4.1, -0.2, 0.9, 1.3,
       -0.5, 1.7, 3.3, -2.2,
       1.9, 0.4, -0.8, 5.6;
  return a;
}

}  // namespace

MT_TEST(lu_solve_4x4_satisfies_system_and_prints_bits) {
  const Eigen::Matrix4d a = kernelMatrix();
  const Eigen::Vector4d b(1.0, -2.0, 0.5, 3.25);
  const Eigen::Vector4d x = a.partialPivLu().solve(b);
  // Residual of the solve: LU with partial pivoting is backward stable, so |Ax - b| ~ 1e-15.
  const double residual = (a * x - b).cwiseAbs().maxCoeff();
  MT_EXPECT(residual < 1e-13);
  printBits("lu_x0", x(0));
  printBits("lu_x1", x(1));
  printBits("lu_x2", x(2));
  printBits("lu_x3", x(3));
  printBits("lu_det", a.partialPivLu().determinant());
}

MT_TEST(sum_of_square_roots_matches_integral_and_prints_bits) {
  // sum_{k=1}^{n} sqrt(k) = (2/3) n^{3/2} + (1/2) n^{1/2} + zeta(-1/2) + O(n^{-1/2}),
  // zeta(-1/2) = -0.2078862250607980 (Euler-Maclaurin).
  double sum = 0.0;
  const int n = 10000;
  for (int k = 1; k <= n; ++k) sum += Eigen::numext::sqrt(static_cast<double>(k));
  const double nd = n;
  const double asymptotic = 2.0 / 3.0 * nd * Eigen::numext::sqrt(nd) + 0.5 * Eigen::numext::sqrt(nd) -
                            0.2078862250607980;
  MT_EXPECT_NEAR(sum, asymptotic, 1e-3);
  printBits("sqrt_sum", sum);
}

MT_TEST(fixed_size_products_and_quotients_print_bits) {
  Eigen::Matrix<double, 8, 8> m;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) m(i, j) = 1.0 / (1.0 + i + j) + (i == j ? 1.0 : 0.0);  // Hilbert + I
  Eigen::Matrix<double, 8, 1> v;
  for (int i = 0; i < 8; ++i) v(i) = (i % 2 == 0 ? 1.0 : -1.0) * (0.1 * i + 0.3);
  const double quadratic = v.dot(m * v);
  // Hilbert + identity is symmetric positive definite, so v^T M v >= |v|^2.
  MT_EXPECT(quadratic >= v.squaredNorm());
  printBits("quad_form", quadratic);
  printBits("norm", v.norm());
}
