// The structured solve against a dense LU of the same matrix (issue 5: agreement to 1e-12
// relative for small N), for the shapes the belt drive uses: 4-coordinate node blocks and a
// border of node 0 plus three unknowns per pulley.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "beltsim/solver/bordered_block_tridiagonal.hpp"

namespace {

template <int N, int W>
void checkAgainstDense(unsigned seed) {
  using Solver = beltsim::BorderedBlockTridiagonal<N, 4, W>;
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  static Solver solver;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  solver.setZero();
  for (int k = 0; k < N; ++k) {
    solver.diagonal(k) = Eigen::Matrix4d::NullaryExpr([&](Eigen::Index, Eigen::Index) { return u(rng); }) +
                         8.0 * Eigen::Matrix4d::Identity();
    if (k > 0) solver.lower(k) = Eigen::Matrix4d::NullaryExpr([&](Eigen::Index, Eigen::Index) { return u(rng); });
    if (k + 1 < N) solver.upper(k) = Eigen::Matrix4d::NullaryExpr([&](Eigen::Index, Eigen::Index) { return u(rng); });
    solver.columnBorder(k) = Eigen::Matrix<double, 4, W>::NullaryExpr([&](Eigen::Index, Eigen::Index) { return 0.5 * u(rng); });
    solver.rowBorder(k) = Eigen::Matrix<double, W, 4>::NullaryExpr([&](Eigen::Index, Eigen::Index) { return 0.5 * u(rng); });
  }
  solver.corner() = Eigen::Matrix<double, W, W>::NullaryExpr([&](Eigen::Index, Eigen::Index) { return u(rng); }) +
                    static_cast<double>(2 * N) * Eigen::Matrix<double, W, W>::Identity();
  // The dense matrix, column by column, from the solver's own product.
  Eigen::MatrixXd dense(Solver::kSize, Solver::kSize);
  for (int j = 0; j < Solver::kSize; ++j) {
    Vector e = Vector::Zero(), column;
    e(j) = 1.0;
    solver.multiply(e, column);
    dense.col(j) = column;
  }
  Vector b;
  for (int i = 0; i < Solver::kSize; ++i) b(i) = u(rng);
  ASSERT_EQ(solver.factorize(), beltsim::Status::kOk);
  Vector x;
  ASSERT_EQ(solver.solve(b, x), beltsim::Status::kOk);
  const Eigen::VectorXd reference = dense.partialPivLu().solve(Eigen::VectorXd(b));
  EXPECT_LT((Eigen::VectorXd(x) - reference).norm() / reference.norm(), 1e-12);
}

TEST(BlockSolver, AgreesWithDenseLuForTwoPulleys) { checkAgainstDense<23, 10>(1); }
TEST(BlockSolver, AgreesWithDenseLuForThreePulleys) { checkAgainstDense<30, 13>(2); }
TEST(BlockSolver, AgreesWithDenseLuForOneBlock) { checkAgainstDense<1, 4>(3); }

}  // namespace
