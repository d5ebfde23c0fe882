// Low-rank corrections of a kept, factorized matrix A0 (Woodbury identity): after updates
// A = A0 + sum_m u_m v_m^T,
//
//   A^-1 b = x0 - W C^-1 V^T x0,   x0 = A0^-1 b,   W = [A0^-1 u_1 .. A0^-1 u_m],
//                                  C = I + V^T W   (m x m, the capacitance matrix).
//
// Used by the fixed-cost stepper: a contact segment that starts or stops touching, or switches
// between stick and slip, changes its pair's Newton block by one or two rank-one terms; they are
// added here instead of rebuilding the matrix. The caller computes w = A0^-1 u with A0's
// factorization (one solve per column); v is sparse (at most MaxNonzeros entries: the 11
// coordinates of one contact pair). Capacity MaxUpdates columns; the capacitance matrix's LU
// factors grow by one row and column per added column. Everything fixed-size, no heap.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"

namespace beltsim {

template <int MaxNonzeros>
struct SparseRow {
  int count = 0;
  int index[MaxNonzeros] = {};
  double value[MaxNonzeros] = {};

  template <typename Vector>
  double dot(const Vector& x) const {
    double sum = 0.0;
    for (int k = 0; k < MaxNonzeros; ++k) {
      if (k >= count) break;
      sum += value[k] * x(index[k]);
    }
    return sum;
  }
};

template <int N, int MaxUpdates, int MaxNonzeros>
class LowRankUpdates {
 public:
  using Vector = Eigen::Matrix<double, N, 1>;
  using Row = SparseRow<MaxNonzeros>;

  void clear() { count_ = 0; }
  int count() const { return count_; }
  int free() const { return MaxUpdates - count_; }

  // Adds the column u v^T given w = A0^-1 u. kInvalidParameter when full; kDegenerateState (and
  // the column is dropped) if the capacitance matrix became singular, i.e. the updated matrix is.
  // C = L U grows by one row and column (bordering, O(m^2) for the m-th column instead of a new
  // factorization): with c_i = C(i, m), r_j = C(m, j) for i, j < m and d = C(m, m),
  //   L u = c,  U^T l = r,  pivot = d - l.u;
  // no row interchanges, so a pivot small against |d| + sum |l_k u_k| counts as singular.
  Status add(const Vector& w, const Row& v) {
    if (count_ >= MaxUpdates) return Status::kInvalidParameter;
    const int m = count_;
    double upper[MaxUpdates];  // the column that U gains
    double lower[MaxUpdates];  // the row that L gains
    for (int i = 0; i < MaxUpdates; ++i) {
      if (i >= m) break;
      double sum = v_[i].dot(w);  // C(i, m)
      for (int k = 0; k < i; ++k) sum -= lower_[i][k] * upper[k];
      upper[i] = sum;
    }
    for (int j = 0; j < MaxUpdates; ++j) {
      if (j >= m) break;
      double sum = v.dot(w_[j]);  // C(m, j)
      for (int k = 0; k < j; ++k) sum -= upper_[k][j] * lower[k];
      lower[j] = sum / upper_[j][j];
    }
    const double diagonal = 1.0 + v.dot(w);
    double pivot = diagonal;
    double scale = diagonal < 0 ? -diagonal : diagonal;
    for (int k = 0; k < MaxUpdates; ++k) {
      if (k >= m) break;
      const double product = lower[k] * upper[k];
      pivot -= product;
      scale += product < 0 ? -product : product;
    }
    if (!isFinite(pivot)) return Status::kNonFiniteValue;
    const double magnitude = pivot < 0 ? -pivot : pivot;
    if (!(magnitude > kSingularPivot * scale)) return Status::kDegenerateState;
    for (int k = 0; k < MaxUpdates; ++k) {
      if (k >= m) break;
      upper_[k][m] = upper[k];
      lower_[m][k] = lower[k];
    }
    upper_[m][m] = pivot;
    w_[m] = w;
    v_[m] = v;
    count_ = m + 1;
    return Status::kOk;
  }

  // x := x - W C^-1 V^T x for x = A0^-1 b: the solution with the updated matrix.
  void correct(Vector& x) const {
    if (count_ == 0) return;
    double z[MaxUpdates];
    for (int i = 0; i < MaxUpdates; ++i) {  // L y = V^T x
      if (i >= count_) break;
      double sum = v_[i].dot(x);
      for (int k = 0; k < i; ++k) sum -= lower_[i][k] * z[k];
      z[i] = sum;
    }
    for (int i = MaxUpdates - 1; i >= 0; --i) {  // U z = y
      if (i >= count_) continue;
      double sum = z[i];
      for (int k = i + 1; k < MaxUpdates; ++k) {
        if (k >= count_) break;
        sum -= upper_[i][k] * z[k];
      }
      z[i] = sum / upper_[i][i];
    }
    for (int i = 0; i < MaxUpdates; ++i) {
      if (i >= count_) break;
      x -= z[i] * w_[i];
    }
  }

 private:
  // A pivot below this fraction of the terms it came from is rounding noise: C is singular.
  static constexpr double kSingularPivot = 1e-12;

  Vector w_[MaxUpdates];
  Row v_[MaxUpdates];
  double lower_[MaxUpdates][MaxUpdates] = {};  // unit lower factor of C (below the diagonal)
  double upper_[MaxUpdates][MaxUpdates] = {};  // upper factor of C
  int count_ = 0;
};

}  // namespace beltsim
