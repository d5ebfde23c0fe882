// The fixed-cost stepper's kept Newton matrix (fixed_cost_stepper.hpp, BeltDrive::refreshSlice,
// finishRefresh, updateSwitches).
//
// What must hold: a refresh spread over slices gives the Newton matrix of a whole build at the
// same point (the same solution of a fixed right-hand side to round-off: the Schur complement is
// summed in another order). A stick/slip switch of one segment on the load pulley, applied as a
// rank-one correction (Woodbury) of the kept factorization, gives the solution of a whole build
// with the switched state up to the part of the block change that is not rank one (the
// change's second singular value is 1e-5..1e-2 of its first, measured at this state); without
// the correction the solution is off by the switch itself, at least a hundred times more.
#include <gtest/gtest.h>

#include <cmath>

#include "beltsim/plant.hpp"
#include "small_drive.hpp"

namespace {
using namespace beltsim;

using namespace beltsim::test;
constexpr int kNE = kSmallDriveElements;
using Plant = SmallPlant;
using Drive = SmallDrive;
using Vector = SmallVector;

double relativeDifference(const Vector& a, const Vector& b) { return (a - b).norm() / b.norm(); }

Status refreshInSlices(Drive& drive, const IterationPoint<Vector>& at, int slices) {
  drive.beginRefresh();
  for (int s = 0; s < slices; ++s) {
    const Status st = drive.refreshSlice(at, s * kNE / slices, (s + 1) * kNE / slices);
    if (st != Status::kOk) return st;
  }
  return drive.finishRefresh(at);
}

TEST(FixedCostMatrix, ARefreshInSlicesSolvesLikeAWholeBuild) {
  static Drive whole, sliced;
  whole = runningPlant().drive();
  sliced = runningPlant().drive();
  const Point point = pointOf(runningPlant());
  ASSERT_EQ(whole.factorize(point.at(0.2)), Status::kOk);
  for (int slices : {1, 5, 8, 24}) {
    ASSERT_EQ(refreshInSlices(sliced, point.at(0.2), slices), Status::kOk) << slices << " slices";
    EXPECT_LT(relativeDifference(solveWith(sliced), solveWith(whole)), 1e-12) << slices << " slices";
  }
}

// Finds a flagged segment of circle p in the given state.
bool findSegment(const Drive& drive, int p, StickSlip state, int& element, int& circle, int& segment) {
  for (int e = 0; e < kNE; ++e)
    for (int i = 0; i < Plant::kSegments; ++i) {
      const SegmentHistory& h = drive.pair(e, p).history(i);
      if (h.gap <= 0.0 && h.state == state) {
        element = e;
        circle = p;
        segment = i;
        return true;
      }
    }
  return false;
}

// Switches one segment on the load pulley (P2) from `from` to `to`, applies it as a low-rank
// correction of the kept matrix and compares with a whole build in the new state.
void expectSwitchCorrected(StickSlip from, StickSlip to, double tolerance) {
  static Drive kept, whole;
  kept = runningPlant().drive();
  const Point point = pointOf(runningPlant());
  int e = 0, p = 0, i = 0;
  ASSERT_TRUE(findSegment(kept, 1, from, e, p, i));
  ASSERT_EQ(refreshInSlices(kept, point.at(0.2), 4), Status::kOk);
  const Vector before = solveWith(kept);
  SegmentHistory h = kept.pair(e, p).history(i);
  h.state = to;
  kept.pair(e, p).setHistory(i, h);
  whole = kept;
  ASSERT_EQ(whole.factorize(point.at(0.2)), Status::kOk);
  const Vector exact = solveWith(whole);
  int columns = 0, pending = 0;
  ASSERT_EQ(kept.updateSwitches(point.at(0.2), 4, columns, pending), Status::kOk);
  EXPECT_EQ(columns, 1);
  EXPECT_EQ(pending, 0);
  const Vector corrected = solveWith(kept);
  const double uncorrectedError = relativeDifference(before, exact);
  const double correctedError = relativeDifference(corrected, exact);
  EXPECT_LT(correctedError, tolerance);
  EXPECT_GT(uncorrectedError, 100.0 * correctedError);
}

// Measured: uncorrected 4.2e-3, corrected 2.8e-7 (stick -> slip); tolerance 1e-5.
TEST(FixedCostMatrix, AStickToSlipSwitchIsALowRankCorrection) {
  expectSwitchCorrected(StickSlip::kStick, StickSlip::kSlipPositive, 1e-5);
}

TEST(FixedCostMatrix, ASlipToStickSwitchIsALowRankCorrection) {
  expectSwitchCorrected(StickSlip::kSlipPositive, StickSlip::kStick, 1e-5);
}

}  // namespace
