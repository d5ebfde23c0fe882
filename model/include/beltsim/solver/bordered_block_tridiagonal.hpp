// Direct solver for the Newton matrix of a belt (spec §7.12): a chain of NumBlocks node blocks of
// size B (block-tridiagonal), bordered by W dense unknowns (node block 0 of a closed belt, which
// carries the periodic corner, plus the pulley rotations).
//
//   [ T  E ] [x_T]   [b_T]      T: block-tridiagonal, D_k on the diagonal, L_k = A(k, k-1),
//   [ F  G ] [x_B] = [b_B]         U_k = A(k, k+1);  E_k = A(k, border), F_k = A(border, k)
//
// Block LU without pivoting between blocks (partial pivoting inside each B x B pivot block):
//   D~_k = D_k - L_k X_{k-1},          X_k = D~_k^-1 U_k
//   E~_k = E_k - L_k Y_{k-1},          Y_k = D~_k^-1 E~_k
//   F~_k = F_k - F~_{k-1} X_{k-1},     G~  = G - sum_k F~_k Y_k   (Schur complement, W x W)
// Cost and storage grow linearly with NumBlocks; everything is fixed-size, no heap. Pivot blocks
// that are singular or non-finite give Status::kDegenerateState.
#pragma once
#include <Eigen/Core>
#include "beltsim/solver/fixed_lu.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

template <int NumBlocks, int B, int W>
class BorderedBlockTridiagonal {
 public:
  using BlockMatrix = Eigen::Matrix<double, B, B>;
  using ColumnBorder = Eigen::Matrix<double, B, W>;
  using RowBorder = Eigen::Matrix<double, W, B>;
  using CornerMatrix = Eigen::Matrix<double, W, W>;
  using BlockVector = Eigen::Matrix<double, B, 1>;
  using BorderVector = Eigen::Matrix<double, W, 1>;
  static constexpr int kSize = NumBlocks * B + W;

  // --- matrix entries (assembly) -------------------------------------------------------------
  void setZero() {
    for (int k = 0; k < NumBlocks; ++k) {
      diagonal_[k].setZero();
      lower_[k].setZero();
      upper_[k].setZero();
      columnBorder_[k].setZero();
      rowBorder_[k].setZero();
    }
    corner_.setZero();
  }
  BlockMatrix& diagonal(int k) { return diagonal_[k]; }      // A(k, k)
  BlockMatrix& lower(int k) { return lower_[k]; }            // A(k, k-1), k >= 1
  BlockMatrix& upper(int k) { return upper_[k]; }            // A(k, k+1), k <= NumBlocks-2
  ColumnBorder& columnBorder(int k) { return columnBorder_[k]; }  // A(k, border)
  RowBorder& rowBorder(int k) { return rowBorder_[k]; }           // A(border, k)
  CornerMatrix& corner() { return corner_; }                      // A(border, border)

  // y = A x for a vector ordered [block 0 .. block NumBlocks-1, border] (tests, residuals).
  template <typename VectorIn, typename VectorOut>
  void multiply(const VectorIn& x, VectorOut& y) const {
    const BorderVector xb = x.template segment<W>(NumBlocks * B);
    BorderVector yb = corner_ * xb;
    for (int k = 0; k < NumBlocks; ++k) {
      BlockVector yk = diagonal_[k] * x.template segment<B>(k * B) + columnBorder_[k] * xb;
      if (k > 0) yk += lower_[k] * x.template segment<B>((k - 1) * B);
      if (k + 1 < NumBlocks) yk += upper_[k] * x.template segment<B>((k + 1) * B);
      y.template segment<B>(k * B) = yk;
      yb += rowBorder_[k] * x.template segment<B>(k * B);
    }
    y.template segment<W>(NumBlocks * B) = yb;
  }

  // --- factorization and solve -----------------------------------------------------------------
  // Factorizes the assembled matrix in place of its own work storage (the entries stay readable).
  Status factorize() {
    beginFactorization(true);
    const Status s = factorizeBlocks(0, NumBlocks);
    if (s != Status::kOk) return s;
    return finishFactorization();
  }

  // The same factorization in pieces, for a matrix assembled block by block (a refresh spread
  // over several time steps): beginFactorization, then factorizeBlocks over consecutive ranges
  // covering 0..NumBlocks-1 in order (block k needs rows k and the border columns of k complete,
  // and the corner only at the end), then finishFactorization. With cornerComplete (the corner is
  // assembled before any block is eliminated) the operations are those of factorize() in the same
  // order; otherwise the eliminated blocks' share -sum F~_k Y_k is summed on its own and added to
  // the corner at the end (the same value up to the order of the additions).
  void beginFactorization(bool cornerComplete) {
    factored_ = false;
    nextBlock_ = 0;
    cornerInSchur_ = cornerComplete;
    if (cornerComplete) {
      schur_ = corner_;
    } else {
      schur_.setZero();
    }
  }
  // Eliminates blocks [first, last); first must be the next block not yet eliminated.
  Status factorizeBlocks(int first, int last) {
    if (first != nextBlock_ || last < first || last > NumBlocks) return Status::kInvalidParameter;
    for (int k = first; k < last; ++k) {
      BlockMatrix pivot = diagonal_[k];
      ColumnBorder e = columnBorder_[k];
      RowBorder& f = fTilde_[k];
      f = rowBorder_[k];
      if (k > 0) {
        // pivot -= L X, e -= L Y, f -= F~ X (plain column-major loops, sums in index order).
        subtractProduct<B, B, B>(lower_[k].data(), x_[k - 1].data(), pivot.data());
        subtractProduct<B, B, W>(lower_[k].data(), y_[k - 1].data(), e.data());
        subtractProduct<W, B, B>(fTilde_[k - 1].data(), x_[k - 1].data(), f.data());
      }
      const Status s = lu_[k].compute(pivot);
      if (s != Status::kOk) return s;
      if (k + 1 < NumBlocks) {
        lu_[k].solveInto(upper_[k].data(), x_[k].data(), B);
      } else {
        x_[k].setZero();
      }
      lu_[k].solveInto(e.data(), y_[k].data(), W);
      // Schur complement G~ = G - sum F~_k Y_k.
      subtractProduct<W, B, W>(f.data(), y_[k].data(), schur_.data());
      nextBlock_ = k + 1;
    }
    return Status::kOk;
  }
  int eliminatedBlocks() const { return nextBlock_; }
  // Completes the Schur complement with the (now complete) corner and factorizes it.
  Status finishFactorization() {
    if (nextBlock_ != NumBlocks) return Status::kInvalidParameter;
    if (!cornerInSchur_) schur_ += corner_;
    cornerInSchur_ = true;
    const Status s = cornerLu_.compute(schur_);
    if (s != Status::kOk) return s;
    factored_ = true;
    return Status::kOk;
  }
  bool factored() const { return factored_; }

  // Factorizes again from chain block `first` on, after entries of blocks k >= first changed
  // (diagonal(k), lower(k), upper(k), columnBorder(k), rowBorder(k)) and of the corner; the
  // blocks before it keep their elimination. Their share of the Schur complement is summed again in the original order, so
  // the result equals a whole factorization in pieces (beginFactorization(false)) of the same
  // entries bit for bit. Needs a complete earlier factorization (or elimination up to `first`).
  Status refactorizeFrom(int first) {
    if (first < 0 || first > nextBlock_) return Status::kInvalidParameter;
    factored_ = false;
    cornerInSchur_ = false;
    schur_.setZero();
    for (int k = 0; k < first; ++k) subtractProduct<W, B, W>(fTilde_[k].data(), y_[k].data(), schur_.data());
    nextBlock_ = first;
    const Status s = factorizeBlocks(first, NumBlocks);
    if (s != Status::kOk) return s;
    return finishFactorization();
  }

  // Solves A x = b with the last factorization; b and x may be the same vector. A right-hand
  // side whose chain blocks before firstNonzeroBlock are zero (a column of one element's
  // coordinates) starts the forward sweep there: the blocks before it eliminate to zero.
  template <typename Vector>
  Status solve(const Vector& b, Vector& x, int firstNonzeroBlock = 0) const {
    if (!factored_) return Status::kDegenerateState;
    BorderVector rhsBorder = b.template segment<W>(NumBlocks * B);
    // Forward: z_k = D~_k^-1 (b_k - L_k z_{k-1}) is the eliminated right-hand side.
    for (int k = 0; k < NumBlocks; ++k) {
      if (k < firstNonzeroBlock) {
        z_[k].setZero();
        continue;
      }
      BlockVector r = b.template segment<B>(k * B);
      if (k > firstNonzeroBlock && k > 0) r.noalias() -= lower_[k] * z_[k - 1];
      z_[k] = lu_[k].solve(r);
      rhsBorder.noalias() -= fTilde_[k] * z_[k];
    }
    const BorderVector xb = cornerLu_.solve(rhsBorder);
    // Backward: x_k = z_k - Y_k x_B - X_k x_{k+1}.
    BlockVector next = BlockVector::Zero();
    for (int k = NumBlocks - 1; k >= 0; --k) {
      BlockVector xk = z_[k] - y_[k] * xb;
      if (k + 1 < NumBlocks) xk.noalias() -= x_[k] * next;
      x.template segment<B>(k * B) = xk;
      next = xk;
    }
    x.template segment<W>(NumBlocks * B) = xb;
    for (int i = 0; i < kSize; ++i)
      if (!isFinite(x(i))) return Status::kNonFiniteValue;
    return Status::kOk;
  }

 private:
  // c -= a b for column-major a (R x K), b (K x C), c (R x C).
  template <int R, int K, int C>
  static void subtractProduct(const double* a, const double* b, double* c) {
    for (int j = 0; j < C; ++j) {
      double* cj = c + j * R;
      const double* bj = b + j * K;
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        double sum = a[i] * bj[0];
#pragma GCC unroll 16
        for (int l = 1; l < K; ++l) sum += a[l * R + i] * bj[l];
        cj[i] -= sum;
      }
    }
  }

  // Assembled matrix.
  BlockMatrix diagonal_[NumBlocks], lower_[NumBlocks], upper_[NumBlocks];
  ColumnBorder columnBorder_[NumBlocks];
  RowBorder rowBorder_[NumBlocks];
  CornerMatrix corner_;
  // Factorization.
  FixedLu<B> lu_[NumBlocks];
  BlockMatrix x_[NumBlocks];
  ColumnBorder y_[NumBlocks];
  RowBorder fTilde_[NumBlocks];
  FixedLu<W> cornerLu_;
  CornerMatrix schur_ = CornerMatrix::Zero();  // G - sum F~_k Y_k over the eliminated blocks (or without G)
  int nextBlock_ = 0;
  bool cornerInSchur_ = true;
  mutable BlockVector z_[NumBlocks];  // forward-substitution work space
  bool factored_ = false;
};

}  // namespace beltsim
