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
// coordinates of one contact pair). Capacity MaxUpdates columns; the capacitance matrix is kept
// MaxUpdates x MaxUpdates with an identity beyond the used columns, so its factorization costs
// the same whatever the count. Everything fixed-size, no heap.
#pragma once
#include <Eigen/Core>

#include "beltsim/fixed_lu.hpp"
#include "beltsim/status.hpp"

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
  using Capacitance = Eigen::Matrix<double, MaxUpdates, MaxUpdates>;

  void clear() {
    if (count_ == 0) return;
    count_ = 0;
    capacitance_.setIdentity();
  }
  int count() const { return count_; }
  int free() const { return MaxUpdates - count_; }

  // Adds the column u v^T given w = A0^-1 u. kInvalidParameter when full; kDegenerateState (and
  // the column is dropped) if the capacitance matrix became singular, i.e. the updated matrix is.
  Status add(const Vector& w, const Row& v) {
    if (count_ >= MaxUpdates) return Status::kInvalidParameter;
    const int m = count_;
    w_[m] = w;
    v_[m] = v;
    for (int j = 0; j <= m; ++j) capacitance_(m, j) = (j == m ? 1.0 : 0.0) + v.dot(w_[j]);
    for (int i = 0; i < m; ++i) capacitance_(i, m) = v_[i].dot(w);
    const Status s = lu_.compute(capacitance_);
    if (s != Status::kOk) {
      for (int j = 0; j <= m; ++j) capacitance_(m, j) = capacitance_(j, m) = 0.0;
      capacitance_(m, m) = 1.0;
      lu_.compute(capacitance_);
      return s;
    }
    count_ = m + 1;
    return Status::kOk;
  }

  // x := x - W C^-1 V^T x for x = A0^-1 b: the solution with the updated matrix.
  void correct(Vector& x) const {
    if (count_ == 0) return;
    Eigen::Matrix<double, MaxUpdates, 1> y = Eigen::Matrix<double, MaxUpdates, 1>::Zero();
    for (int i = 0; i < MaxUpdates; ++i) {
      if (i >= count_) break;
      y(i) = v_[i].dot(x);
    }
    Eigen::Matrix<double, MaxUpdates, 1> z;
    lu_.solveInto(y.data(), z.data(), 1);
    for (int i = 0; i < MaxUpdates; ++i) {
      if (i >= count_) break;
      x -= z(i) * w_[i];
    }
  }

 private:
  Vector w_[MaxUpdates];
  Row v_[MaxUpdates];
  Capacitance capacitance_ = Capacitance::Identity();
  FixedLu<MaxUpdates> lu_;
  int count_ = 0;
};

}  // namespace beltsim
