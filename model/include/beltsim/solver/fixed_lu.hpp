// LU factorization with partial pivoting for small fixed-size matrices (the pivot blocks of the
// block solver and small dense systems). Written out instead of Eigen::PartialPivLU because
// Eigen's version instantiates a blocked path with dynamic-size temporaries, which links malloc
// into a bare-metal image (caught by the image heap check). Loops are bounded by N; no heap.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"

namespace beltsim {

template <int N>
class FixedLu {
 public:
  using Matrix = Eigen::Matrix<double, N, N>;

  // Factorizes PA = LU. Returns kDegenerateState if a pivot is zero or tiny relative to the
  // largest entry (numerically singular), kNonFiniteValue if the matrix holds NaN/Inf.
  Status compute(const Matrix& a) {
    lu_ = a;
    ok_ = false;
    double scale = 0.0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        const double v = lu_(i, j) < 0 ? -lu_(i, j) : lu_(i, j);
        if (!isFinite(v)) return Status::kNonFiniteValue;
        if (v > scale) scale = v;
      }
    if (!(scale > 0.0)) return Status::kDegenerateState;
    for (int k = 0; k < N; ++k) {
      int pivotRow = k;
      double pivotMagnitude = lu_(k, k) < 0 ? -lu_(k, k) : lu_(k, k);
      for (int i = k + 1; i < N; ++i) {
        const double v = lu_(i, k) < 0 ? -lu_(i, k) : lu_(i, k);
        if (v > pivotMagnitude) {
          pivotMagnitude = v;
          pivotRow = i;
        }
      }
      if (!(pivotMagnitude > 1e-14 * scale)) return Status::kDegenerateState;
      permutation_[k] = pivotRow;
      if (pivotRow != k) lu_.row(k).swap(lu_.row(pivotRow));
      const double inversePivot = 1.0 / lu_(k, k);
      for (int i = k + 1; i < N; ++i) {
        const double factor = lu_(i, k) * inversePivot;
        lu_(i, k) = factor;
        for (int j = k + 1; j < N; ++j) lu_(i, j) -= factor * lu_(k, j);
      }
    }
    ok_ = true;
    return Status::kOk;
  }

  bool ok() const { return ok_; }

  // Solves A X = B column by column (B: N x M). Requires a successful compute().
  template <int M>
  Eigen::Matrix<double, N, M> solve(const Eigen::Matrix<double, N, M>& b) const {
    Eigen::Matrix<double, N, M> x;
    solveInto(b.data(), x.data(), M);
    return x;
  }

  // Same on raw column-major storage (in and out may alias), `columns` columns of N entries.
  void solveInto(const double* in, double* out, int columns) const {
    const double* lu = lu_.data();  // column-major: (i, j) at j * N + i
    for (int c = 0; c < columns; ++c) {
      double v[N];
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) v[i] = in[c * N + i];
#pragma GCC unroll 16
      for (int k = 0; k < N; ++k) {  // the row interchanges of compute(), in order
        const int pr = permutation_[k];
        const double t = v[k];
        v[k] = v[pr];
        v[pr] = t;
      }
#pragma GCC unroll 16
      for (int i = 1; i < N; ++i) {  // forward: L has unit diagonal
        double s = v[i];
#pragma GCC unroll 16
        for (int j = 0; j < i; ++j) s -= lu[j * N + i] * v[j];
        v[i] = s;
      }
#pragma GCC unroll 16
      for (int i = N - 1; i >= 0; --i) {  // backward
        double s = v[i];
#pragma GCC unroll 16
        for (int j = i + 1; j < N; ++j) s -= lu[j * N + i] * v[j];
        v[i] = s / lu[i * N + i];
      }
#pragma GCC unroll 16
      for (int i = 0; i < N; ++i) out[c * N + i] = v[i];
    }
  }

  const Matrix& matrixLU() const { return lu_; }

 private:
  Matrix lu_ = Matrix::Zero();
  int permutation_[N] = {};
  bool ok_ = false;
};

}  // namespace beltsim
