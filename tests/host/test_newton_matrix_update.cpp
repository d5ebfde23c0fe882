// Partial Newton-matrix updates in later post-Newton passes (IntegratorSettings::
// updateChangedContactsOnly, BeltDrive::factorize with MatrixUpdate::kChangedContacts).
//
// What must hold: a kChangedContacts build re-evaluates exactly the contact pairs whose flags or
// stick/slip states changed since the last build. With no change it keeps the last factorization
// (re-evaluates nothing), and after a state change it gives what a full build at the same point
// gives, bit for bit. In a run, the approximation (element and unchanged pair blocks
// from pass 1) only changes the Newton iterates, so the results agree with full builds to the
// Newton tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "beltsim/system/plant.hpp"
#include "small_drive.hpp"

namespace {
using namespace beltsim;

using namespace beltsim::test;
constexpr int kNE = kSmallDriveElements;
using Plant = SmallPlant;
using Drive = SmallDrive;
using Vector = SmallVector;

// Finds a flagged segment in stick of an element from firstElement on; returns false if there is none.
bool findStickingSegment(const Drive& drive, int& element, int& circle, int& segment, int firstElement = 0) {
  for (int e = firstElement; e < kNE; ++e)
    for (int p = 0; p < Drive::kPulleys; ++p)
      for (int i = 0; i < Plant::kSegments; ++i) {
        const SegmentHistory& h = drive.pair(e, p).history(i);
        if (h.gap <= 0.0 && h.state == StickSlip::kStick) {
          element = e;
          circle = p;
          segment = i;
          return true;
        }
      }
  return false;
}

// What a post-Newton step does to one segment (stick -> slip), then the update of the matrix
// where contacts changed, which must rebuild something.
void slipAndUpdate(Drive& drive, const Point& point, int e, int p, int i) {
  SegmentHistory h = drive.pair(e, p).history(i);
  h.state = StickSlip::kSlipPositive;
  drive.pair(e, p).setHistory(i, h);
  bool built = false;
  ASSERT_EQ(drive.factorize(point.at(0.2), MatrixUpdate::kChangedContacts, built), Status::kOk);
  EXPECT_TRUE(built);
}

TEST(NewtonMatrixUpdate, WithNothingChangedTheUpdateKeepsTheLastFactorization) {
  static Drive drive;
  drive = runningPlant().drive();
  const Point point = pointOf(runningPlant());
  ASSERT_EQ(drive.factorize(point.at(0.2)), Status::kOk);
  const Vector full = solveWith(drive);
  // Even at another point: nothing is re-evaluated while no contact pair changed its state.
  Point moved = point;
  moved.q *= 1.001;
  bool built = true;
  ASSERT_EQ(drive.factorize(moved.at(0.2), MatrixUpdate::kChangedContacts, built), Status::kOk);
  EXPECT_FALSE(built);
  const Vector updated = solveWith(drive);
  for (int i = 0; i < Drive::kSize; ++i) EXPECT_EQ(full(i), updated(i)) << "unknown " << i;
  // A full build at the moved point does change the matrix.
  ASSERT_EQ(drive.factorize(moved.at(0.2)), Status::kOk);
  EXPECT_NE(solveWith(drive), full);
}

TEST(NewtonMatrixUpdate, AChangedStickSlipStateIsReEvaluatedLikeAFullBuild) {
  static Drive partial, reference;
  partial = runningPlant().drive();
  const Point point = pointOf(runningPlant());
  int e = 0, p = 0, i = 0;
  ASSERT_TRUE(findStickingSegment(partial, e, p, i)) << "the ramp should leave sticking contacts";
  ASSERT_EQ(partial.factorize(point.at(0.2)), Status::kOk);
  const Vector before = solveWith(partial);
  ASSERT_NO_FATAL_FAILURE(slipAndUpdate(partial, point, e, p, i));
  const Vector updated = solveWith(partial);
  reference = partial;
  ASSERT_EQ(reference.factorize(point.at(0.2)), Status::kOk);
  const Vector full = solveWith(reference);
  double change = 0.0;
  for (int k = 0; k < Drive::kSize; ++k) {
    EXPECT_EQ(full(k), updated(k)) << "unknown " << k;
    change = std::fmax(change, std::fabs(updated(k) - before(k)));
  }
  // The state change does change the matrix (else this test could not see a skipped pair).
  EXPECT_GT(change, 0.0);
}

// The update keeps the elimination of the chain blocks before the first one a changed pair
// touches (BeltDrive::reusedChainBlocks) and still gives the full build's solution bit for bit, with
// the whole border and with the compact one: a sticking segment of an element in the second half
// of the belt switched to slip.
TEST(NewtonMatrixUpdate, AnUpdateKeepsTheChainBeforeTheChangedPairAndTheFullBuildsBits) {
  static Drive partial, reference;
  for (const bool compact : {false, true}) {
    partial = runningPlant().drive();
    partial.setCompactBorder(compact);
    const Point point = pointOf(runningPlant());
    int element = -1, circle = 0, segment = 0;
    ASSERT_TRUE(findStickingSegment(partial, element, circle, segment, kNE / 2))
        << "the ramp should leave sticking contacts in the second half";
    ASSERT_EQ(partial.factorize(point.at(0.2)), Status::kOk);
    EXPECT_EQ(partial.reusedChainBlocks(), 0);  // a full build eliminates the whole chain
    ASSERT_NO_FATAL_FAILURE(slipAndUpdate(partial, point, element, circle, segment));
    EXPECT_EQ(partial.reusedChainBlocks(), element - 1) << "node " << element << " is chain block " << element - 1;
    const Vector updated = solveWith(partial);
    reference = partial;
    ASSERT_EQ(reference.factorize(point.at(0.2)), Status::kOk);
    const Vector full = solveWith(reference);
    for (int k = 0; k < Drive::kSize; ++k) EXPECT_EQ(full(k), updated(k)) << "compact " << compact << " unknown " << k;
    // The update assembled only the chain blocks from the changed pair on and the corner; the
    // kept blocks' entries (which the solve reads too) and the rest are the whole build's, bit
    // for bit: the matrix times a vector with no zero entry gives the same bits.
    Vector x, fromUpdate, fromWhole;
    for (int i = 0; i < Drive::kSize; ++i) x(i) = 1.0 + 1e-3 * i;
    partial.activeMatrix().multiply(x, fromUpdate);
    reference.activeMatrix().multiply(x, fromWhole);
    for (int i = 0; i < Drive::kSize; ++i) EXPECT_EQ(fromWhole(i), fromUpdate(i)) << "compact " << compact << " row " << i;
  }
}

// Switching the compact border between builds (BeltDrive::setCompactBorder) makes the next
// update a whole factorization with the new border instead of keeping an elimination made with
// the other one (which the solver would refuse).
TEST(NewtonMatrixUpdate, AChangedBorderMakesTheNextUpdateAWholeFactorization) {
  static Drive drive;
  drive = runningPlant().drive();
  const Point point = pointOf(runningPlant());
  int e = 0, p = 0, i = 0;
  ASSERT_TRUE(findStickingSegment(drive, e, p, i, kNE / 2));  // an update would keep chain blocks
  ASSERT_EQ(drive.factorize(point.at(0.2)), Status::kOk);
  EXPECT_EQ(drive.eliminatedBorderWidth(), Drive::kBorder);
  drive.setCompactBorder(true);
  ASSERT_NO_FATAL_FAILURE(slipAndUpdate(drive, point, e, p, i));
  EXPECT_EQ(drive.reusedChainBlocks(), 0);
  EXPECT_EQ(drive.eliminatedBorderWidth(), Drive::kBorder - 5);
}

// Runs 0.3 s of the ramp with full builds and with `options`, both at relative Newton tolerance
// 1e-8: speeds, drive torque and span forces must agree to 1e-6 relative, far better than the
// model's own accuracy and a hundred times the differences measured (1e-8). Returns the matrix
// builds of both runs.
struct BuildCounts {
  int full = 0, other = 0;
};
BuildCounts expectAgreementWithFullBuilds(const PlantConfig& options) {
  static Plant full, other;
  BuildCounts builds;
  EXPECT_TRUE(full.setUp(smallDriveConfig(false)).ok());
  EXPECT_TRUE(other.setUp(options).ok());
  EXPECT_TRUE(full.start().converged);
  EXPECT_TRUE(other.start().converged);
  for (int k = 1; k <= 300; ++k) {
    const PlantOutput a = full.step(rampCommand(k));
    const PlantOutput b = other.step(rampCommand(k));
    builds.full += a.jacobianUpdates;
    builds.other += b.jacobianUpdates;
    EXPECT_EQ(a.fault, PlantFault::kNone);
    EXPECT_EQ(b.fault, PlantFault::kNone);
    EXPECT_NEAR(b.speed[1], a.speed[1], 1e-6 * (1.0 + std::fabs(a.speed[1]))) << "step " << k;
    EXPECT_NEAR(b.torque[0], a.torque[0], 1e-6 * (1.0 + std::fabs(a.torque[0]))) << "step " << k;
    for (int s = 0; s < 2; ++s)
      EXPECT_NEAR(b.spanForce[s], a.spanForce[s], 1e-6 * std::fabs(a.spanForce[s])) << "step " << k;
  }
  return builds;
}

TEST(NewtonMatrixUpdate, RunsWithPartialUpdatesAgreeWithFullBuildsToTheNewtonTolerance) {
  const BuildCounts builds = expectAgreementWithFullBuilds(smallDriveConfig(true));
  // Later post-Newton passes happened (more builds than steps), so partial updates were exercised.
  EXPECT_GT(builds.full, 300);
  EXPECT_GT(builds.other, 300);
}

TEST(NewtonMatrixUpdate, MatricesReusedAcrossStepsAgreeWithFullBuildsToTheNewtonTolerance) {
  // The matrix kept from step to step and updated where the contacts changed (the reference
  // stepping's reuse_jacobian with update_changed_contacts_only).
  const BuildCounts builds = expectAgreementWithFullBuilds(smallDriveConfig(true, true));
  EXPECT_LT(builds.other, builds.full);  // matrices were kept
}

}  // namespace

namespace {

// The reference stepping's compact border (IntegratorSettings::compactBorder; the fixed-cost
// stepping always uses it): the prescribed border unknowns (both centres fixed, P1 speed-driven: 5 of the
// 10) are solved apart instead of eliminated. The same matrix, so the same solution to rounding.
TEST(ReferenceCompactBorder, SolvesLikeTheWholeBorderWithFivePrescribedUnknownsLeftOut) {
  static Drive whole, compact;
  whole = runningPlant().drive();
  compact = runningPlant().drive();
  compact.setCompactBorder(true);
  const Point point = pointOf(runningPlant());
  ASSERT_EQ(whole.factorize(point.at(0.2)), Status::kOk);
  ASSERT_EQ(compact.factorize(point.at(0.2)), Status::kOk);
  EXPECT_EQ(whole.eliminatedBorderWidth(), Drive::kBorder);
  EXPECT_EQ(compact.eliminatedBorderWidth(), Drive::kBorder - 5);
  const Vector a = solveWith(compact), b = solveWith(whole);
  EXPECT_LT((a - b).norm(), 1e-12 * b.norm());
}

// A run with it agrees with the whole border's to rounding (1e-9 relative, the bound the
// reference mode's results keep when only the order of operations changes), and its static
// equilibrium, which always eliminates the whole border, is the same bit for bit, also when the
// plant is started again after a run.
TEST(ReferenceCompactBorder, ARunAgreesWithTheWholeBorderToRoundingFromTheSameStaticState) {
  static Plant whole, compact;
  PlantConfig config = smallDriveConfig(true, true);
  ASSERT_TRUE(whole.setUp(config).ok());
  config.integrator.compactBorder = true;
  ASSERT_TRUE(compact.setUp(config).ok());
  ASSERT_TRUE(whole.start().converged);
  ASSERT_TRUE(compact.start().converged);
  const Vector& q0 = whole.integrator().positions();
  const Vector& q1 = compact.integrator().positions();
  for (int i = 0; i < Drive::kSize; ++i) ASSERT_EQ(q0(i), q1(i)) << "unknown " << i;
  EXPECT_EQ(compact.drive().eliminatedBorderWidth(), Drive::kBorder);  // the static solve's
  for (int k = 1; k <= 300; ++k) {
    const PlantOutput a = whole.step(rampCommand(k));
    const PlantOutput b = compact.step(rampCommand(k));
    ASSERT_EQ(b.fault, PlantFault::kNone);
    EXPECT_NEAR(b.speed[1], a.speed[1], 1e-9 * (1.0 + std::fabs(a.speed[1]))) << "step " << k;
    EXPECT_NEAR(b.torque[0], a.torque[0], 1e-9 * (1.0 + std::fabs(a.torque[0]))) << "step " << k;
    for (int s = 0; s < 2; ++s)
      EXPECT_NEAR(b.spanForce[s], a.spanForce[s], 1e-9 * std::fabs(a.spanForce[s])) << "step " << k;
  }
  EXPECT_EQ(compact.drive().eliminatedBorderWidth(), Drive::kBorder - 5);
  // Started again (an FMU reset), the static equilibrium is again the whole border's, bit for bit.
  ASSERT_TRUE(whole.start().converged);
  ASSERT_TRUE(compact.start().converged);
  for (int i = 0; i < Drive::kSize; ++i) ASSERT_EQ(q0(i), q1(i)) << "unknown " << i << " after a restart";
}

}  // namespace
