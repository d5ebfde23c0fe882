// The structured solve against a dense LU of the same matrix (issue 5: agreement to 1e-12
// relative for small N), for the shapes the belt drive uses: 4-coordinate node blocks and a
// border of node 0 plus three unknowns per pulley.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "beltsim/solver/bordered_block_tridiagonal.hpp"

namespace {

// A random, diagonally dominant bordered matrix (the shapes of checkAgainstDense).
template <int N, int W>
void fillRandom(beltsim::BorderedBlockTridiagonal<N, 4, W>& solver, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto random = [&](Eigen::Index, Eigen::Index) { return u(rng); };
  solver.setZero();
  for (int k = 0; k < N; ++k) {
    solver.diagonal(k) = Eigen::Matrix4d::NullaryExpr(random) + 8.0 * Eigen::Matrix4d::Identity();
    if (k > 0) solver.lower(k) = Eigen::Matrix4d::NullaryExpr(random);
    if (k + 1 < N) solver.upper(k) = Eigen::Matrix4d::NullaryExpr(random);
    solver.columnBorder(k) = 0.5 * Eigen::Matrix<double, 4, W>::NullaryExpr(random);
    solver.rowBorder(k) = 0.5 * Eigen::Matrix<double, W, 4>::NullaryExpr(random);
  }
  solver.corner() = Eigen::Matrix<double, W, W>::NullaryExpr(random) + static_cast<double>(2 * N) * Eigen::Matrix<double, W, W>::Identity();
}

// The dense matrix, column by column, from the solver's own product.
template <typename Solver>
Eigen::MatrixXd denseOf(const Solver& solver) {
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  Eigen::MatrixXd dense(Solver::kSize, Solver::kSize);
  for (int j = 0; j < Solver::kSize; ++j) {
    Vector e = Vector::Zero(), column;
    e(j) = 1.0;
    solver.multiply(e, column);
    dense.col(j) = column;
  }
  return dense;
}

template <int N, int W>
void checkAgainstDense(unsigned seed) {
  using Solver = beltsim::BorderedBlockTridiagonal<N, 4, W>;
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  static Solver solver;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  fillRandom(solver, rng);
  const Eigen::MatrixXd dense = denseOf(solver);
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


// Partial re-factorization (refactorizeFrom, the fixed-cost stepper's switched contact pairs):
// after entries of blocks first.. and of the corner change, eliminating again from `first` on
// gives the same factorization as eliminating the changed matrix from block 0 (in pieces, corner
// added at the end), so the same solution bit for bit; and it is the solution of the changed
// matrix (against a dense LU, 1e-12), not of the old one.
TEST(BlockSolver, RefactorizingFromABlockEqualsAWholeFactorization) {
  constexpr int N = 23, W = 10, first = 9;
  using Solver = beltsim::BorderedBlockTridiagonal<N, 4, W>;
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  static Solver partial, whole;
  std::mt19937 rng(7);
  fillRandom(partial, rng);
  partial.beginFactorization(false);
  ASSERT_EQ(partial.factorizeBlocks(0, N), beltsim::Status::kOk);
  ASSERT_EQ(partial.finishFactorization(), beltsim::Status::kOk);
  Vector b;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int i = 0; i < Solver::kSize; ++i) b(i) = u(rng);
  Vector before;
  ASSERT_EQ(partial.solve(b, before), beltsim::Status::kOk);
  // What a contact pair of the element between nodes first+1 and first+2 changes.
  for (int k : {first, first + 1}) {
    partial.diagonal(k)(0, 1) += 0.7;
    partial.diagonal(k)(2, 2) += 1.3;
    partial.columnBorder(k)(1, 5) -= 0.4;
    partial.rowBorder(k)(6, 3) += 0.2;
  }
  partial.upper(first)(3, 0) -= 0.9;
  partial.lower(first + 1)(0, 3) += 0.6;
  partial.corner()(5, 5) += 2.0;
  partial.corner()(5, 6) -= 0.5;
  whole = partial;
  ASSERT_EQ(partial.refactorizeFrom(first), beltsim::Status::kOk);
  whole.beginFactorization(false);
  ASSERT_EQ(whole.factorizeBlocks(0, N), beltsim::Status::kOk);
  ASSERT_EQ(whole.finishFactorization(), beltsim::Status::kOk);
  Vector x, reference;
  ASSERT_EQ(partial.solve(b, x), beltsim::Status::kOk);
  ASSERT_EQ(whole.solve(b, reference), beltsim::Status::kOk);
  for (int i = 0; i < Solver::kSize; ++i) EXPECT_EQ(x(i), reference(i)) << "entry " << i;
  const Eigen::VectorXd exact = denseOf(whole).partialPivLu().solve(Eigen::VectorXd(b));
  EXPECT_LT((Eigen::VectorXd(x) - exact).norm() / exact.norm(), 1e-12);
  EXPECT_GT((before - x).norm() / exact.norm(), 1e-3);
  EXPECT_EQ(partial.refactorizeFrom(N + 1), beltsim::Status::kInvalidParameter);
}

namespace {

// Border unknowns 4, 5 and 7 of a two-pulley border made prescribed: rows zero but for a scaled
// diagonal, columns left coupled (as BeltDrive's prescribed rows).
template <int N, int W>
void prescribeBorderRows(beltsim::BorderedBlockTridiagonal<N, 4, W>& solver, std::initializer_list<int> rows) {
  for (int b : rows) {
    for (int k = 0; k < N; ++k) solver.rowBorder(k).row(b).setZero();
    solver.corner().row(b).setZero();
    solver.corner()(b, b) = 3.5 + b;
  }
}

}  // namespace

// The compact border (setInactiveBorder): prescribed border unknowns left out of the elimination
// give the solution of the whole matrix (dense LU, 1e-12 relative), with a right-hand side that
// is nonzero on them (a prescribed speed) as well as zero; a partial re-factorization of a compact
// factorization equals a whole one bit for bit; an inactive row that is not zero but for its
// diagonal is refused.
TEST(BlockSolver, ACompactBorderSolvesTheWholeMatrix) {
  constexpr int N = 23, W = 10;
  using Solver = beltsim::BorderedBlockTridiagonal<N, 4, W>;
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  static Solver solver, full;
  std::mt19937 rng(11);
  fillRandom(solver, rng);
  prescribeBorderRows(solver, {4, 5, 7});
  full = solver;
  const Eigen::MatrixXd dense = denseOf(solver);
  solver.setInactiveBorder((1u << 4) | (1u << 5) | (1u << 7));
  ASSERT_EQ(solver.factorize(), beltsim::Status::kOk);
  EXPECT_EQ(solver.eliminatedBorderWidth(), 7);
  ASSERT_EQ(full.factorize(), beltsim::Status::kOk);
  EXPECT_EQ(full.eliminatedBorderWidth(), 10);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (bool prescribedZero : {true, false}) {
    Vector b;
    for (int i = 0; i < Solver::kSize; ++i) b(i) = u(rng);
    if (prescribedZero)
      for (int p : {4, 5, 7}) b(N * 4 + p) = 0.0;
    Vector x, xFull;
    ASSERT_EQ(solver.solve(b, x), beltsim::Status::kOk);
    ASSERT_EQ(full.solve(b, xFull), beltsim::Status::kOk);
    const Eigen::VectorXd reference = dense.partialPivLu().solve(Eigen::VectorXd(b));
    EXPECT_LT((Eigen::VectorXd(x) - reference).norm() / reference.norm(), 1e-12) << prescribedZero;
    EXPECT_LT((x - xFull).norm() / reference.norm(), 1e-12);
  }
  // Partial re-factorization after a change of blocks 9, 10 (a contact pair's).
  static Solver whole;
  solver.diagonal(9)(0, 1) += 0.7;
  solver.columnBorder(10)(1, 8) -= 0.4;
  solver.rowBorder(9)(6, 3) += 0.2;
  whole = solver;
  ASSERT_EQ(solver.refactorizeFrom(9), beltsim::Status::kOk);
  whole.beginFactorization(false);
  ASSERT_EQ(whole.factorizeBlocks(0, N), beltsim::Status::kOk);
  ASSERT_EQ(whole.finishFactorization(), beltsim::Status::kOk);
  Vector b, x, reference;
  for (int i = 0; i < Solver::kSize; ++i) b(i) = u(rng);
  ASSERT_EQ(solver.solve(b, x), beltsim::Status::kOk);
  ASSERT_EQ(whole.solve(b, reference), beltsim::Status::kOk);
  for (int i = 0; i < Solver::kSize; ++i) EXPECT_EQ(x(i), reference(i)) << "entry " << i;
  const Eigen::VectorXd exact = denseOf(whole).partialPivLu().solve(Eigen::VectorXd(b));
  EXPECT_LT((Eigen::VectorXd(x) - exact).norm() / exact.norm(), 1e-12);
  // An inactive unknown whose row couples is refused, in the chain and in the corner.
  solver.rowBorder(3)(5, 2) = 0.1;
  EXPECT_EQ(solver.factorize(), beltsim::Status::kInvalidParameter);
  solver.rowBorder(3)(5, 2) = 0.0;
  solver.corner()(7, 0) = 0.1;
  EXPECT_EQ(solver.factorize(), beltsim::Status::kInvalidParameter);
}

// The reference stepping's update where contact pairs changed (BeltDrive::assembleAndFactorize
// with kept chain blocks): refactorizeFrom(first, true) starts the Schur complement from the
// corner, as factorize() does, so after entries of blocks first.. and of the corner change it
// gives factorize()'s solution of the changed matrix bit for bit, with the whole border and with
// a compact one; a border mask other than the one the kept elimination used is refused.
TEST(BlockSolver, RefactorizingFromABlockWithTheCompleteCornerEqualsFactorize) {
  constexpr int N = 23, W = 10, first = 12;
  using Solver = beltsim::BorderedBlockTridiagonal<N, 4, W>;
  using Vector = Eigen::Matrix<double, Solver::kSize, 1>;
  static Solver partial, whole;
  for (const std::uint32_t mask : {0u, (1u << 4) | (1u << 5) | (1u << 7)}) {
    std::mt19937 rng(13 + mask);
    fillRandom(partial, rng);
    prescribeBorderRows(partial, {4, 5, 7});
    partial.setInactiveBorder(mask);
    ASSERT_EQ(partial.factorize(), beltsim::Status::kOk);
    // What a contact pair of the element between nodes first+1 and first+2 changes.
    for (int k : {first, first + 1}) {
      partial.diagonal(k)(1, 0) -= 0.8;
      partial.columnBorder(k)(2, 6) += 0.3;
      partial.rowBorder(k)(8, 1) -= 0.25;
    }
    partial.upper(first)(0, 2) += 0.5;
    partial.corner()(6, 6) += 1.5;
    partial.corner()(8, 6) -= 0.4;
    whole = partial;
    ASSERT_EQ(partial.refactorizeFrom(first, true), beltsim::Status::kOk);
    ASSERT_EQ(whole.factorize(), beltsim::Status::kOk);
    Vector b, x, reference;
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int i = 0; i < Solver::kSize; ++i) b(i) = u(rng);
    ASSERT_EQ(partial.solve(b, x), beltsim::Status::kOk);
    ASSERT_EQ(whole.solve(b, reference), beltsim::Status::kOk);
    for (int i = 0; i < Solver::kSize; ++i) EXPECT_EQ(x(i), reference(i)) << "mask " << mask << " entry " << i;
    const Eigen::VectorXd exact = denseOf(whole).partialPivLu().solve(Eigen::VectorXd(b));
    EXPECT_LT((Eigen::VectorXd(x) - exact).norm() / exact.norm(), 1e-12);
    partial.setInactiveBorder(mask ^ (1u << 4));
    EXPECT_EQ(partial.refactorizeFrom(first, true), beltsim::Status::kInvalidParameter);
  }
}
