// Direct solver for the Newton matrix of a belt (docs/model_drive_and_solver.md §7.11): a chain of NumBlocks node blocks of
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
//
// Compact border (setInactiveBorder): border unknowns whose row is zero but for its diagonal
// (prescribed unknowns, x_p = b_p / A(p, p)) can be left out of the elimination. Their columns
// then move to the right-hand side at each solve (b -= A(:, p) x_p), and E~, Y, F~ and the Schur
// complement cover only the other border unknowns: for the belt drive's two pulleys with fixed
// axes the border eliminated shrinks from 10 to 5, and the chain elimination's border work,
// which grows with W and W^2, by about half. Without inactive unknowns the operations are those
// of the full border, in the same order (the same bits).
#pragma once
#include <Eigen/Core>
#include <cstdint>
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
  static_assert(W <= 32, "the compact border's mask has 32 bits");

  // --- matrix entries (assembly) -------------------------------------------------------------
  void setZero() { setZeroFrom(0); }
  // Zeroes the entries of chain blocks first.. (their diagonal, lower, upper and border blocks) and
  // the corner; the blocks before `first` keep theirs (an update that assembles only from there).
  void setZeroFrom(int first) {
    for (int k = first < 0 ? 0 : first; k < NumBlocks; ++k) {
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

  // One entry by its index in the solver's order (blocks, then the border): A(row, col) += value.
  // Entries outside the stored pattern (blocks more than one apart) are dropped.
  void add(int row, int col, double value) {
    constexpr int border = NumBlocks * B;
    if (row >= border) {
      if (col >= border) corner_(row - border, col - border) += value;
      else rowBorder_[col / B](row - border, col % B) += value;
      return;
    }
    if (col >= border) {
      columnBorder_[row / B](row % B, col - border) += value;
      return;
    }
    const int br = row / B, bc = col / B;
    if (bc == br) diagonal_[br](row % B, col % B) += value;
    else if (bc == br + 1) upper_[br](row % B, col % B) += value;
    else if (bc == br - 1) lower_[br](row % B, col % B) += value;
  }
  // Row `second` := a row(first) + b row(second), for two rows of one block (or both in the
  // border).
  void combineRows(int first, int second, double a, double b) {
    constexpr int border = NumBlocks * B;
    if (second >= border) {
      const int r1 = first - border, r2 = second - border;
      corner_.row(r2) = a * corner_.row(r1) + b * corner_.row(r2);
      for (int k = 0; k < NumBlocks; ++k) rowBorder_[k].row(r2) = a * rowBorder_[k].row(r1) + b * rowBorder_[k].row(r2);
      return;
    }
    const int k = second / B, l1 = first % B, l2 = second % B;
    diagonal_[k].row(l2) = a * diagonal_[k].row(l1) + b * diagonal_[k].row(l2);
    lower_[k].row(l2) = a * lower_[k].row(l1) + b * lower_[k].row(l2);
    upper_[k].row(l2) = a * upper_[k].row(l1) + b * upper_[k].row(l2);
    columnBorder_[k].row(l2) = a * columnBorder_[k].row(l1) + b * columnBorder_[k].row(l2);
  }
  // Zeroes every stored entry of one row.
  void clearRow(int row) {
    constexpr int border = NumBlocks * B;
    if (row >= border) {
      corner_.row(row - border).setZero();
      for (int k = 0; k < NumBlocks; ++k) rowBorder_[k].row(row - border).setZero();
      return;
    }
    const int k = row / B, l = row % B;
    diagonal_[k].row(l).setZero();
    lower_[k].row(l).setZero();
    upper_[k].row(l).setZero();
    columnBorder_[k].row(l).setZero();
  }

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

  // --- compact border ------------------------------------------------------------------------------
  // Border unknowns (bit b: border unknown b) that the next factorization leaves out of the
  // elimination. Each one's row must be zero but for a nonzero diagonal when the factorization
  // reads it (rowBorder rows as each block is eliminated, the corner row at the end); otherwise
  // the factorization returns kInvalidParameter. Takes effect at the next beginFactorization or
  // factorize(); the solves follow the factorization they use.
  void setInactiveBorder(std::uint32_t mask) { pendingInactive_ = mask; }
  int eliminatedBorderWidth() const { return activeCount_; }

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
    latchBorder();
    if (!compact()) {
      if (cornerComplete) {
        schur_ = corner_;
      } else {
        schur_.setZero();
      }
      return;
    }
    schur_.setZero();
    if (cornerComplete)
      for (int j = 0; j < activeCount_; ++j)
        for (int i = 0; i < activeCount_; ++i) schur_(i, j) = corner_(active_[i], active_[j]);
  }
  // Eliminates blocks [first, last); first must be the next block not yet eliminated.
  Status factorizeBlocks(int first, int last) {
    if (first < 0 || first != nextBlock_ || last < first || last > NumBlocks) return Status::kInvalidParameter;
    return compact() ? eliminateBlocks<true>(first, last) : eliminateBlocks<false>(first, last);
  }
  int eliminatedBlocks() const { return nextBlock_; }
  // Completes the Schur complement with the (now complete) corner and factorizes it.
  Status finishFactorization() {
    if (nextBlock_ != NumBlocks) return Status::kInvalidParameter;
    if (compact()) return finishFactorizationCompact();
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
  //
  // With cornerComplete the Schur complement starts from the corner as factorize() starts it, and
  // the result equals factorize() of the same entries bit for bit: the blocks before `first` give
  // the same F~_k Y_k, subtracted in the same order. The border left out of the elimination must
  // be the one the earlier factorization latched (setInactiveBorder with the same mask).
  Status refactorizeFrom(int first, bool cornerComplete = false) {
    if (first < 0 || first > nextBlock_) return Status::kInvalidParameter;
    if (cornerComplete && pendingInactive_ != latchedInactive()) return Status::kInvalidParameter;
    factored_ = false;
    cornerInSchur_ = cornerComplete;
    schur_.setZero();
    if (cornerComplete) {
      if (compact()) {
        for (int j = 0; j < activeCount_; ++j)
          for (int i = 0; i < activeCount_; ++i) schur_(i, j) = corner_(active_[i], active_[j]);
      } else {
        schur_ = corner_;
      }
    }
    for (int k = 0; k < first; ++k) {
      if (compact()) {
        subtractProductN<B>(fTilde_[k].data(), W, y_[k].data(), schur_.data(), W, activeCount_, activeCount_);
      } else {
        subtractProduct<W, B, W>(fTilde_[k].data(), y_[k].data(), schur_.data());
      }
    }
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
    if (compact()) return solveCompact(b, x, firstNonzeroBlock);
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
  bool compact() const { return activeCount_ < W; }

  // The border unknowns of the factorization that starts: eliminated ones (active_) and left out
  // (inactive_), each in increasing order.
  void latchBorder() {
    activeCount_ = 0;
    inactiveCount_ = 0;
    for (int b = 0; b < W; ++b) {
      if ((pendingInactive_ >> b) & 1u) {
        inactive_[inactiveCount_++] = b;
      } else {
        active_[activeCount_++] = b;
      }
    }
  }

  // The mask of the border unknowns the last beginFactorization left out of the elimination.
  std::uint32_t latchedInactive() const {
    std::uint32_t mask = 0;
    for (int m = 0; m < inactiveCount_; ++m) mask |= 1u << inactive_[m];
    return mask;
  }

  // Whether every inactive border row of chain block k is zero (the compact border's contract).
  bool inactiveRowsZero(int k) const {
    for (int m = 0; m < inactiveCount_; ++m)
      for (int l = 0; l < B; ++l)
        if (rowBorder_[k](inactive_[m], l) != 0.0) return false;
    return true;
  }

  // The elimination of chain blocks [first, last). With the compact border, E~_k and Y_k hold
  // the active border columns in their first activeCount_ columns, F~_k the active rows in its
  // first activeCount_ rows, the Schur complement the active unknowns in its leading block.
  template <bool kCompact>
  Status eliminateBlocks(int first, int last) {
    if (first < 0 || last > NumBlocks) return Status::kInvalidParameter;
    const int wa = kCompact ? activeCount_ : W;
    for (int k = first; k < last; ++k) {
      BlockMatrix pivot = diagonal_[k];
      ColumnBorder e;
      RowBorder& f = fTilde_[k];
      if constexpr (kCompact) {
        if (!inactiveRowsZero(k)) return Status::kInvalidParameter;
        for (int j = 0; j < wa; ++j) e.col(j) = columnBorder_[k].col(active_[j]);
        for (int i = 0; i < wa; ++i) f.row(i) = rowBorder_[k].row(active_[i]);
      } else {
        e = columnBorder_[k];
        f = rowBorder_[k];
      }
      if (NumBlocks > 1 && k > 0) {
        // pivot -= L X, e -= L Y, f -= F~ X (plain column-major loops, sums in index order).
        subtractProduct<B, B, B>(lower_[k].data(), x_[k - 1].data(), pivot.data());
        if constexpr (kCompact) {
          subtractProductN<B>(lower_[k].data(), B, y_[k - 1].data(), e.data(), B, B, wa);
          subtractProductN<B>(fTilde_[k - 1].data(), W, x_[k - 1].data(), f.data(), W, wa, B);
        } else {
          subtractProduct<B, B, W>(lower_[k].data(), y_[k - 1].data(), e.data());
          subtractProduct<W, B, B>(fTilde_[k - 1].data(), x_[k - 1].data(), f.data());
        }
      }
      const Status s = lu_[k].compute(pivot);
      if (s != Status::kOk) return s;
      if (k + 1 < NumBlocks) {
        lu_[k].solveInto(upper_[k].data(), x_[k].data(), B);
      } else {
        x_[k].setZero();
      }
      lu_[k].solveInto(e.data(), y_[k].data(), wa);
      // Schur complement G~ = G - sum F~_k Y_k.
      if constexpr (kCompact) {
        subtractProductN<B>(f.data(), W, y_[k].data(), schur_.data(), W, wa, wa);
      } else {
        subtractProduct<W, B, W>(f.data(), y_[k].data(), schur_.data());
      }
      nextBlock_ = k + 1;
    }
    return Status::kOk;
  }

  // finishFactorization with the compact border: the active Schur complement, with the identity
  // in place of the inactive unknowns so that the W x W pivoted LU serves it unchanged.
  Status finishFactorizationCompact() {
    const int wa = activeCount_;
    for (int m = 0; m < inactiveCount_; ++m) {
      const int p = inactive_[m];
      for (int j = 0; j < W; ++j)
        if (j != p && corner_(p, j) != 0.0) return Status::kInvalidParameter;
      if (!(corner_(p, p) != 0.0 && isFinite(corner_(p, p)))) return Status::kInvalidParameter;
    }
    if (!cornerInSchur_)
      for (int j = 0; j < wa; ++j)
        for (int i = 0; i < wa; ++i) schur_(i, j) += corner_(active_[i], active_[j]);
    cornerInSchur_ = true;
    // Outside its leading block the compact Schur complement is zero (beginFactorization and
    // refactorizeFrom clear it; the elimination writes only the leading block): its diagonal
    // there made 1 in place, no W x W copy on the stack.
    for (int i = wa; i < W; ++i) schur_(i, i) = 1.0;
    const Status s = cornerLu_.compute(schur_);
    if (s != Status::kOk) return s;
    factored_ = true;
    return Status::kOk;
  }

  // solve with the compact border: the inactive unknowns first (x_p = b_p / A(p, p)), their
  // columns to the right-hand side, then the eliminated system as in solve().
  template <typename Vector>
  Status solveCompact(const Vector& b, Vector& x, int firstNonzeroBlock) const {
    const int wa = activeCount_;
    double fixedValue[W];
    bool anyFixed = false;
    for (int m = 0; m < inactiveCount_; ++m) {
      const int p = inactive_[m];
      fixedValue[m] = b(NumBlocks * B + p) / corner_(p, p);
      anyFixed = anyFixed || fixedValue[m] != 0.0;
    }
    if (anyFixed) firstNonzeroBlock = 0;  // the moved columns fill every chain block
    BorderVector rhsBorder = BorderVector::Zero();
    for (int i = 0; i < wa; ++i) {
      double r = b(NumBlocks * B + active_[i]);
      for (int m = 0; m < inactiveCount_; ++m) r -= corner_(active_[i], inactive_[m]) * fixedValue[m];
      rhsBorder(i) = r;
    }
    for (int k = 0; k < NumBlocks; ++k) {
      if (k < firstNonzeroBlock) {
        z_[k].setZero();
        continue;
      }
      BlockVector r = b.template segment<B>(k * B);
      for (int m = 0; m < inactiveCount_; ++m) r -= columnBorder_[k].col(inactive_[m]) * fixedValue[m];
      if (k > firstNonzeroBlock && k > 0) r.noalias() -= lower_[k] * z_[k - 1];
      z_[k] = lu_[k].solve(r);
      for (int i = 0; i < wa; ++i) {
        double sum = fTilde_[k](i, 0) * z_[k](0);
        for (int l = 1; l < B; ++l) sum += fTilde_[k](i, l) * z_[k](l);
        rhsBorder(i) -= sum;
      }
    }
    const BorderVector xa = cornerLu_.solve(rhsBorder);  // entries wa.. are 0 (identity rows)
    BlockVector next = BlockVector::Zero();
    for (int k = NumBlocks - 1; k >= 0; --k) {
      BlockVector xk = z_[k];
      for (int j = 0; j < wa; ++j) xk -= y_[k].col(j) * xa(j);
      if (k + 1 < NumBlocks) xk.noalias() -= x_[k] * next;
      x.template segment<B>(k * B) = xk;
      next = xk;
    }
    for (int i = 0; i < wa; ++i) x(NumBlocks * B + active_[i]) = xa(i);
    for (int m = 0; m < inactiveCount_; ++m) x(NumBlocks * B + inactive_[m]) = fixedValue[m];
    for (int i = 0; i < kSize; ++i)
      if (!isFinite(x(i))) return Status::kNonFiniteValue;
    return Status::kOk;
  }

  // c -= a b with K compile-time and the other sizes at run time: a (rows x K, leading dimension
  // lda), b (K x cols, leading dimension K), c (rows x cols, leading dimension ldc); the sums in
  // index order, as subtractProduct.
  template <int K>
  static void subtractProductN(const double* a, int lda, const double* b, double* c, int ldc, int rows, int cols) {
    for (int j = 0; j < cols; ++j) {
      double* cj = c + j * ldc;
      const double* bj = b + j * K;
      for (int i = 0; i < rows; ++i) {
        double sum = a[i] * bj[0];
#pragma GCC unroll 16
        for (int l = 1; l < K; ++l) sum += a[l * lda + i] * bj[l];
        cj[i] -= sum;
      }
    }
  }

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
  // Compact border: requested mask, and the split of the factorization in use.
  std::uint32_t pendingInactive_ = 0;
  int active_[W] = {};
  int inactive_[W] = {};
  int activeCount_ = W;
  int inactiveCount_ = 0;
};

}  // namespace beltsim
