// Exact bounding box of a cubic ANCF element (issue 4, paper [P] eqs. 10-13, docs/model_contact.md §5.1-5.5).
// Reference: the centreline sampled at 10^4 + 1 equally spaced parameters with the Hermite shape
// functions (an evaluation independent of the monomial coefficients the box uses). The box must
// contain every sample, and equal the sample box once the extreme samples are refined to the true
// extremum (a golden-section search on the sample's neighbourhood) to 1e-12.
#include <cmath>

#include "beltsim/contact/bounding_box.hpp"
#include "minitest.hpp"
#include "test_contact_support.hpp"

using beltsim::BoundingBox;
using beltsim::Vector2;
using beltsim::Vector8;

namespace {
constexpr int kSamples = 10000;
constexpr double kContainSlack = 1e-13;  // rounding of two evaluation orders of the same cubic, O(1) values

double coordinate(const Vector8& q, double L, double x, int c) { return contact_test::centreline(q, L, x)(c); }

// Extremum (sign = +1 max, -1 min) of coordinate c on [a, b] by golden-section search, given
// that the bracket holds one interior extremum (it is two sample spacings wide around the best
// sample); ends included.
double refineExtremum(const Vector8& q, double L, int c, double sign, double a, double b) {
  const double invPhi = 0.6180339887498949;
  double x1 = b - invPhi * (b - a), x2 = a + invPhi * (b - a);
  double f1 = sign * coordinate(q, L, x1, c), f2 = sign * coordinate(q, L, x2, c);
  for (int it = 0; it < 80; ++it) {
    if (f1 > f2) {
      b = x2; x2 = x1; f2 = f1;
      x1 = b - invPhi * (b - a);
      f1 = sign * coordinate(q, L, x1, c);
    } else {
      a = x1; x1 = x2; f1 = f2;
      x2 = a + invPhi * (b - a);
      f2 = sign * coordinate(q, L, x2, c);
    }
  }
  double best = f1 > f2 ? f1 : f2;
  best = std::fmax(best, sign * coordinate(q, L, a, c));
  best = std::fmax(best, sign * coordinate(q, L, b, c));
  return sign * best;
}

// Checks one element; returns the largest deviation |box - refined sample box| and counts
// samples outside the box.
double checkElement(const Vector8& q, double L, int& outside) {
  const BoundingBox box = beltsim::elementBoundingBox(q, L);
  double deviation = 0.0;
  for (int c = 0; c < 2; ++c) {
    double low = 1e300, high = -1e300;
    int lowIndex = 0, highIndex = 0;
    for (int k = 0; k <= kSamples; ++k) {
      const double v = coordinate(q, L, L * k / kSamples, c);
      if (v < box.lower(c) - kContainSlack || v > box.upper(c) + kContainSlack) ++outside;
      if (v < low) { low = v; lowIndex = k; }
      if (v > high) { high = v; highIndex = k; }
    }
    const auto bracket = [&](int k, double& a, double& b) {
      a = L * (k > 0 ? k - 1 : 0) / kSamples;
      b = L * (k < kSamples ? k + 1 : kSamples) / kSamples;
    };
    double a, b;
    bracket(lowIndex, a, b);
    const double refinedLow = refineExtremum(q, L, c, -1.0, a, b);
    bracket(highIndex, a, b);
    const double refinedHigh = refineExtremum(q, L, c, +1.0, a, b);
    deviation = std::fmax(deviation, std::fabs(refinedLow - box.lower(c)));
    deviation = std::fmax(deviation, std::fabs(refinedHigh - box.upper(c)));
  }
  return deviation;
}

Vector8 randomLargeDeformationElement(contact_test::Lcg& rng, double& L) {
  L = rng.uniform(0.1, 2.0);
  Vector8 q;
  for (int node = 0; node < 2; ++node) {
    q(4 * node) = rng.uniform(-1.0, 1.0);
    q(4 * node + 1) = rng.uniform(-1.0, 1.0);
    // Slopes of random direction and stretch 0.2..3: loops, S-shapes and turning points.
    const double angle = rng.uniform(-beltsim::detmath::kPi, beltsim::detmath::kPi);
    const double stretch = rng.uniform(0.2, 3.0);
    q(4 * node + 2) = stretch * contact_test::cosT(angle);
    q(4 * node + 3) = stretch * contact_test::sinT(angle);
  }
  return q;
}
}  // namespace

// Seed 000 eqs. (11)-(13): the box of random large-deformation elements equals the refined box of
// 10^4 samples to 1e-12 and contains every sample.
MT_TEST(box_of_random_large_deformation_elements_matches_and_contains_samples) {
  contact_test::Lcg rng(21);
  double worst = 0.0;
  int outside = 0;
  for (int trial = 0; trial < 40; ++trial) {
    double L;
    const Vector8 q = randomLargeDeformationElement(rng, L);
    worst = std::fmax(worst, checkElement(q, L, outside));
  }
  MT_EXPECT(outside == 0);
  MT_EXPECT(worst <= 1e-12);
  minitest::print("  largest |box - refined sample box| over 40 random elements: ");
  minitest::printDouble(worst);
  minitest::print(" m\n");
}

// docs/model_contact.md §5.2 special cases: a3 = 0 exactly (quadratic coordinate, single root -a1/(2 a2)),
// a2 = a3 = 0 (straight element: end points only), and a nearly parabolic coordinate far from the
// origin where a3 is rounding noise (the cancellation-free root formula is needed there).
MT_TEST(box_handles_quadratic_straight_and_nearly_parabolic_coordinates) {
  int outside = 0;
  // r_x(x) = x, r_y(x) = (x - 0.25)^2 on [0, 1]: a3 = 0 exactly (2 q0 - 2 q4 + L (q2 + q6) = 0).
  const Vector8 quadratic = contact_test::elementFromNodes(Vector2(0.0, 0.0625), Vector2(1.0, -0.5),
                                                           Vector2(1.0, 0.5625), Vector2(1.0, 1.5));
  BoundingBox box = beltsim::elementBoundingBox(quadratic, 1.0);
  MT_EXPECT_NEAR(box.lower(1), 0.0, 1e-15);
  MT_EXPECT_NEAR(box.upper(1), 0.5625, 1e-15);
  MT_EXPECT(checkElement(quadratic, 1.0, outside) <= 1e-12);
  // Straight element from (0.1, -0.2) to (0.7, 0.6).
  const Vector8 straight = contact_test::elementFromNodes(Vector2(0.1, -0.2), Vector2(0.6, 0.8),
                                                          Vector2(0.7, 0.6), Vector2(0.6, 0.8));
  box = beltsim::elementBoundingBox(straight, 1.0);
  MT_EXPECT_NEAR(box.lower(0), 0.1, 1e-15);
  MT_EXPECT_NEAR(box.upper(0), 0.7, 1e-15);
  MT_EXPECT_NEAR(box.lower(1), -0.2, 1e-15);
  MT_EXPECT_NEAR(box.upper(1), 0.6, 1e-15);
  // r_y = 100.1 + (x - 0.3)^2 on [0, 0.7], 100 m from the origin: a3 ~ 1e-14 from rounding.
  const double L = 0.7;
  const Vector8 far = contact_test::elementFromNodes(Vector2(0.0, 100.1 + 0.09), Vector2(1.0, -0.6),
                                                     Vector2(L, 100.1 + 0.16), Vector2(1.0, 0.8));
  box = beltsim::elementBoundingBox(far, L);
  MT_EXPECT_NEAR(box.lower(1), 100.1, 1e-12);
  MT_EXPECT(checkElement(far, L, outside) <= 1e-12);
  MT_EXPECT(outside == 0);
}

// docs/model_contact.md §5.4: the centreline box inflated by |h_o| contains the offset segment points (and so
// the segments, which are their convex combinations) of random elements.
MT_TEST(box_inflated_by_offset_contains_offset_segment_points) {
  contact_test::Lcg rng(22);
  int outside = 0;
  for (int trial = 0; trial < 200; ++trial) {
    double L;
    const Vector8 q = randomLargeDeformationElement(rng, L);
    const double offset = rng.uniform(-0.05, 0.05);
    BoundingBox box = beltsim::elementBoundingBox(q, L);
    box.inflate(std::fabs(offset));
    beltsim::SegmentPoints<12> points;
    if (beltsim::computeSegmentPoints(q, Vector8::Zero(), L, 12, offset, points) != beltsim::Status::kOk) continue;
    for (int k = 0; k <= 12; ++k) {
      const Vector2 p = points.position[k];
      if (p(0) < box.lower(0) - kContainSlack || p(0) > box.upper(0) + kContainSlack ||
          p(1) < box.lower(1) - kContainSlack || p(1) > box.upper(1) + kContainSlack)
        ++outside;
    }
  }
  MT_EXPECT(outside == 0);
}

// docs/model_contact.md §5.5: separatedFromCircle is exactly "the distance from the centre to the box exceeds r".
MT_TEST(box_circle_separation_test_uses_distance_to_box) {
  BoundingBox box;
  box.lower = Vector2(0.0, 0.0);
  box.upper = Vector2(1.0, 0.5);
  MT_EXPECT(!box.separatedFromCircle(Vector2(0.5, 0.25), 0.01));  // centre inside
  MT_EXPECT(box.separatedFromCircle(Vector2(1.3, 0.9), 0.49));    // corner distance 0.5
  MT_EXPECT(!box.separatedFromCircle(Vector2(1.3, 0.9), 0.51));
  MT_EXPECT(box.separatedFromCircle(Vector2(0.5, -0.2), 0.19));   // edge distance 0.2
  MT_EXPECT(!box.separatedFromCircle(Vector2(0.5, -0.2), 0.21));
}
