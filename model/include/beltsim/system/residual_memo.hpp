// What the last residual of the reference stepping computed, and where (BeltDrive::residual): the
// element forces and every evaluated contact pair's forces, the history each pair's forces were
// computed with, and its segment kinematics for the post-Newton step. A second call at the same
// bits of q, v and a reuses what did not change and sums in the same order, so its result is the
// full evaluation's to the bit. Valid from a complete evaluation until the next step or change of
// the drive's parameters.
//
// Bare-metal builds leave it out (BELTSIM_RESIDUAL_MEMO=0, model/CMakeLists.txt): their
// configurations decide the states inside Newton, where it does not apply, and it would take
// their RAM; the arrays then shrink to one entry.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <Eigen/Core>

#include "beltsim/contact/circle_cable_contact.hpp"

#ifndef BELTSIM_RESIDUAL_MEMO
#define BELTSIM_RESIDUAL_MEMO 1
#endif

namespace beltsim {

template <int NE, int NP, int NCS, int kSize>
struct ResidualMemo {
  static constexpr bool kEnabled = BELTSIM_RESIDUAL_MEMO != 0;
  static constexpr int kElements = kEnabled ? NE : 1;
  static constexpr int kPulleys = kEnabled ? NP : 1;
  static constexpr int kMemoSize = kEnabled ? kSize : 1;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using MemoVector = Eigen::Matrix<double, kMemoSize, 1>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;

  bool valid = false;
  std::uint32_t revision = 0;  // the drive's parameter revision at the record (PulleysAndPairs::revision)
  MemoVector q = MemoVector::Zero(), v = MemoVector::Zero(), a = MemoVector::Zero();
  Vector8 element[kElements];                   // element forces with inertia and gravity (LHS)
  bool evaluated[kElements][kPulleys] = {};     // the pair's entries below are from that point
  PairForces pair[kElements][kPulleys];
  SegmentHistory history[kElements][kPulleys][NCS];  // the history the forces were computed with
  PairKinematics<NCS> kinematics[kElements][kPulleys];

  // Starts a record at (q, v, a): nothing of the pairs is known there yet.
  void begin(const Vector& q2, const Vector& v2, const Vector& a2, std::uint32_t atRevision) {
    valid = false;
    revision = atRevision;
    q = q2.template head<kMemoSize>();
    v = v2.template head<kMemoSize>();
    a = a2.template head<kMemoSize>();
    for (int e = 0; e < kElements; ++e)
      for (int p = 0; p < kPulleys; ++p) evaluated[e][p] = false;
  }
  // Bit for bit, so that -0.0 and +0.0 count as different points.
  bool samePoint(const Vector& q2, const Vector& v2, const Vector& a2) const {
    if (!kEnabled) return false;
    constexpr std::size_t bytes = sizeof(double) * kMemoSize;
    return std::memcmp(q.data(), q2.data(), bytes) == 0 && std::memcmp(v.data(), v2.data(), bytes) == 0 &&
           std::memcmp(a.data(), a2.data(), bytes) == 0;
  }
};

}  // namespace beltsim
