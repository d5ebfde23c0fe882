// The O(N) bordered block-tridiagonal solver (docs/model_drive_and_solver.md §7.11) against its own definition: for random
// non-symmetric, block-diagonally dominant matrices the solution satisfies A x = b to round-off,
// and a singular pivot block is reported instead of producing NaN.
#include "beltsim/solver/bordered_block_tridiagonal.hpp"
#include "minitest.hpp"

namespace {

struct Lcg {
  unsigned long long state;
  double next() {  // uniform in [-1, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
};

constexpr int kBlocks = 30;  // a 31-element closed belt: node 0 in the border
constexpr int kB = 4;
constexpr int kW = 6;        // node 0 (4) + two pulley rotations
using Solver = beltsim::BorderedBlockTridiagonal<kBlocks, kB, kW>;
using Vector = Eigen::Matrix<double, Solver::kSize, 1>;

Solver g_solver;  // static storage: too large for the Cortex-M stack

void fillRandom(Solver& s, Lcg& rng) {
  s.setZero();
  for (int k = 0; k < kBlocks; ++k) {
    for (int i = 0; i < kB; ++i) {
      for (int j = 0; j < kB; ++j) {
        s.diagonal(k)(i, j) = rng.next() + (i == j ? 12.0 : 0.0);
        if (k > 0) s.lower(k)(i, j) = rng.next();
        if (k + 1 < kBlocks) s.upper(k)(i, j) = rng.next();
      }
      for (int j = 0; j < kW; ++j) {
        s.columnBorder(k)(i, j) = 0.3 * rng.next();
        s.rowBorder(k)(j, i) = 0.3 * rng.next();
      }
    }
  }
  for (int i = 0; i < kW; ++i)
    for (int j = 0; j < kW; ++j) s.corner()(i, j) = rng.next() + (i == j ? 40.0 : 0.0);
}

}  // namespace

MT_TEST(block_solver_solution_satisfies_the_system) {
  Lcg rng{12345};
  for (int trial = 0; trial < 5; ++trial) {
    fillRandom(g_solver, rng);
    Vector b;
    for (int i = 0; i < Solver::kSize; ++i) b(i) = rng.next();
    MT_EXPECT(g_solver.factorize() == beltsim::Status::kOk);
    Vector x;
    MT_EXPECT(g_solver.solve(b, x) == beltsim::Status::kOk);
    Vector ax;
    g_solver.multiply(x, ax);
    // Backward-stable elimination on a well-conditioned matrix: residual at round-off level.
    MT_EXPECT((ax - b).cwiseAbs().maxCoeff() < 1e-12);
  }
}

MT_TEST(block_solver_solves_in_place) {
  Lcg rng{777};
  fillRandom(g_solver, rng);
  Vector b;
  for (int i = 0; i < Solver::kSize; ++i) b(i) = rng.next();
  Vector x = b;
  MT_EXPECT(g_solver.factorize() == beltsim::Status::kOk);
  MT_EXPECT(g_solver.solve(x, x) == beltsim::Status::kOk);
  Vector ax;
  g_solver.multiply(x, ax);
  MT_EXPECT((ax - b).cwiseAbs().maxCoeff() < 1e-12);
}

// A right-hand side that is zero in the chain blocks before k0 (one element's coordinates and the
// border) may start the forward sweep at k0: the skipped blocks eliminate to zero, so the
// solution is the full sweep's, value for value.
MT_TEST(block_solver_sparse_right_hand_side_starts_at_its_first_block) {
  Lcg rng{777};
  fillRandom(g_solver, rng);
  MT_EXPECT(g_solver.factorize() == beltsim::Status::kOk);
  constexpr int k0 = 17;
  Vector b = Vector::Zero();
  for (int i = k0 * kB; i < (k0 + 2) * kB; ++i) b(i) = rng.next();
  for (int i = kBlocks * kB; i < Solver::kSize; ++i) b(i) = rng.next();
  Vector full, sparse;
  MT_EXPECT(g_solver.solve(b, full) == beltsim::Status::kOk);
  MT_EXPECT(g_solver.solve(b, sparse, k0) == beltsim::Status::kOk);
  bool equal = true;
  for (int i = 0; i < Solver::kSize; ++i) equal = equal && sparse(i) == full(i);
  MT_EXPECT(equal);
  MT_EXPECT(full.head<kB>().cwiseAbs().maxCoeff() > 0.0);  // the solution itself is not sparse
}

MT_TEST(block_solver_reports_a_singular_pivot_block) {
  Lcg rng{99};
  fillRandom(g_solver, rng);
  g_solver.diagonal(7).setZero();
  g_solver.lower(7).setZero();  // block row 7 couples only to the border: pivot block is zero
  MT_EXPECT(g_solver.factorize() == beltsim::Status::kDegenerateState);
  Vector b = Vector::Ones(), x;
  MT_EXPECT(g_solver.solve(b, x) == beltsim::Status::kDegenerateState);
}

MT_TEST(block_solver_prints_bits_of_a_fixed_solve) {
  Lcg rng{2024};
  fillRandom(g_solver, rng);
  Vector b;
  for (int i = 0; i < Solver::kSize; ++i) b(i) = rng.next();
  Vector x;
  MT_EXPECT(g_solver.factorize() == beltsim::Status::kOk);
  MT_EXPECT(g_solver.solve(b, x) == beltsim::Status::kOk);
  minitest::print("BITS solver_x0 ");
  minitest::printHexBits(x(0));
  minitest::print("\nBITS solver_xlast ");
  minitest::printHexBits(x(Solver::kSize - 1));
  minitest::print("\nBITS solver_norm ");
  minitest::printHexBits(x.norm());
  minitest::print("\n");
}

// The factorization in pieces (a refresh spread over several steps) against the whole one:
// with the corner assembled first, the same operations in the same order give the same bits;
// with the corner added at the end, the Schur complement is summed in another order and the
// solution agrees to round-off.
MT_TEST(block_solver_factorization_in_pieces_matches_the_whole_one) {
  static Solver pieces;
  Lcg rng{777};
  fillRandom(g_solver, rng);
  pieces = g_solver;
  Vector b;
  for (int i = 0; i < Solver::kSize; ++i) b(i) = rng.next();
  MT_EXPECT(g_solver.factorize() == beltsim::Status::kOk);
  Vector whole;
  MT_EXPECT(g_solver.solve(b, whole) == beltsim::Status::kOk);
  for (bool cornerFirst : {true, false}) {
    pieces.beginFactorization(cornerFirst);
    MT_EXPECT(pieces.factorizeBlocks(0, 7) == beltsim::Status::kOk);
    MT_EXPECT(pieces.factorizeBlocks(8, 12) == beltsim::Status::kInvalidParameter);  // out of order
    MT_EXPECT(pieces.finishFactorization() == beltsim::Status::kInvalidParameter);  // incomplete
    MT_EXPECT(pieces.factorizeBlocks(7, 19) == beltsim::Status::kOk);
    MT_EXPECT(pieces.factorizeBlocks(19, kBlocks) == beltsim::Status::kOk);
    MT_EXPECT(pieces.finishFactorization() == beltsim::Status::kOk);
    Vector x;
    MT_EXPECT(pieces.solve(b, x) == beltsim::Status::kOk);
    if (cornerFirst) {
      for (int i = 0; i < Solver::kSize; ++i) MT_EXPECT(x(i) == whole(i));
    } else {
      MT_EXPECT((x - whole).cwiseAbs().maxCoeff() < 1e-13 * whole.cwiseAbs().maxCoeff());
    }
  }
}
