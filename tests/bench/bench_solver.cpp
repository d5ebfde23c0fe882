// Cost of the structured solve against the number of node blocks (issue 5: it must grow
// linearly). Factorization and one solve of a belt-shaped matrix (4 x 4 blocks, border of node 0
// plus two pulleys' three unknowns).
#include <benchmark/benchmark.h>

#include "beltsim/solver/bordered_block_tridiagonal.hpp"

namespace {

template <int N>
void fill(beltsim::BorderedBlockTridiagonal<N, 4, 10>& s) {
  s.setZero();
  for (int k = 0; k < N; ++k) {
    s.diagonal(k) = Eigen::Matrix4d::Constant(0.1) + 8.0 * Eigen::Matrix4d::Identity();
    if (k > 0) s.lower(k) = Eigen::Matrix4d::Constant(-0.2);
    if (k + 1 < N) s.upper(k) = Eigen::Matrix4d::Constant(-0.3);
    s.columnBorder(k) = Eigen::Matrix<double, 4, 10>::Constant(0.01);
    s.rowBorder(k) = Eigen::Matrix<double, 10, 4>::Constant(0.02);
  }
  s.corner() = 100.0 * Eigen::Matrix<double, 10, 10>::Identity();
}

template <int N>
void BM_FactorizeAndSolve(benchmark::State& state) {
  static beltsim::BorderedBlockTridiagonal<N, 4, 10> solver;
  using Vector = Eigen::Matrix<double, 4 * N + 10, 1>;
  static Vector b = Vector::Ones(), x;
  fill(solver);
  for (auto _ : state) {
    benchmark::DoNotOptimize(solver.factorize());
    benchmark::DoNotOptimize(solver.solve(b, x));
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_block"] =
      benchmark::Counter(static_cast<double>(N), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK_TEMPLATE(BM_FactorizeAndSolve, 30);
BENCHMARK_TEMPLATE(BM_FactorizeAndSolve, 60);
BENCHMARK_TEMPLATE(BM_FactorizeAndSolve, 120);
BENCHMARK_TEMPLATE(BM_FactorizeAndSolve, 240);
BENCHMARK_TEMPLATE(BM_FactorizeAndSolve, 480);

}  // namespace

BENCHMARK_MAIN();
