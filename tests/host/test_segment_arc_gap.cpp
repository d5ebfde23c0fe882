// The straight segments' geometric bias and its removal (issue 33). A belt wrapped at rest around
// two equal pulleys, no gravity, no motion: its tension is uniform and equals EA times the strain
// of its pitch-line path (the belt's centreline: the pulleys' radius plus half the thickness),
//   N = EA (L_path / L_belt - 1 - eps_ref),
// with L_belt = L_path by construction here (the elements are cut from the path), so N = -EA eps_ref
// = 400 N for the paper's belt. With the paper's chord gap each segment's ends ride L_s^2 / (8 r)
// outside the circle, and a coarse belt's tension is too high by about EA theta L_s^2 / (8 r L);
// the arc gap removes that share and the element's own sag (cubicArcSag), and the penetration
// compensation the contact's sinking.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/system/belt_drive.hpp"
#include "beltsim/system/belt_geometry.hpp"
#include "beltsim/system/belt_outputs.hpp"
#include "beltsim/system/paper_parameters.hpp"
#include "beltsim/stepping/static_equilibrium.hpp"

namespace {
using namespace beltsim;

constexpr int kNCS = 4;
constexpr double kRadius = 0.09995, kThickness = 1e-4, kCentreDistance = 0.3141592653589793;

struct WrapResult {
  bool ok = false;
  double span[2] = {0.0, 0.0};  // N, the two spans' mean axial force
  double predicted = 0.0;       // N, EA times the pitch-line path's strain
};

// Static equilibrium of the paper's belt (without gravity) around the paper's two pulleys, both
// held fixed, with NE elements of 4 segments and the given segment geometry.
template <int NE>
WrapResult staticWrap(SegmentGapMeasure measure, bool compensation, double stiffnessScale = 1.0,
                      AxialRule rule = AxialRule::kC, double shift = 0.0) {
  using Drive = BeltDrive<NE, 2, kNCS>;
  static Drive drive;  // large: keep it off the test's stack
  static typename Drive::Vector q, v;
  WrapResult r;
  BeltParameters belt = paperBelt();
  belt.element.gravity = Vector2::Zero();
  belt.element.axialRule = rule;
  PulleyParameters circle[2];
  PathCircle pc[2];
  for (int p = 0; p < 2; ++p) {
    circle[p].kind = PulleyKind::kFixed;
    circle[p].centre = Vector2(p * kCentreDistance, 0.0);
    circle[p].radius = kRadius;
    circle[p].inertia = 0.25;
    pc[p] = PathCircle{circle[p].centre, kRadius + 0.5 * kThickness, 1};
  }
  BeltPath<2> path;
  if (!buildBeltPath(pc, 2, path).ok()) return r;
  const double length = path.totalLength / NE;
  ContactPerArea perArea;
  perArea.gapMeasure = measure;
  perArea.penetrationCompensation = compensation;
  perArea.stiffness *= stiffnessScale;
  perArea.damping *= stiffnessScale;
  const ContactParameters cp = contactFromPerArea(perArea, belt, length, kNCS);
  if (!drive.setUp(belt, length, circle, 2, cp).ok()) return r;
  placeOnPath(drive, path, q, shift * length);
  const StaticResult s = solveStaticEquilibrium(drive, q, StaticSettings{}, cp.friction);
  if (s.status != Status::kOk || !s.converged) return r;
  v.setZero();
  for (int k = 0; k < 2; ++k) {
    const SpanMeasure m = measureSpan(drive, q, v, path, k);
    if (m.samples == 0) return r;
    r.span[k] = m.force;
  }
  // Elements cut from the pitch-line path: its strain is 0, the force the pre-stretch's.
  const double beltLength = NE * length;
  r.predicted = belt.element.EA * (path.totalLength / beltLength - 1.0 - belt.element.referenceAxialStrain);
  r.ok = true;
  return r;
}

double worstRelativeError(const WrapResult& r) {
  return std::fmax(std::fabs(r.span[0] / r.predicted - 1.0), std::fabs(r.span[1] / r.predicted - 1.0));
}

void report(const char* name, const WrapResult& r) {
  std::printf("%s: spans %.4f N, %.4f N; path predicts %.4f N (%+.3f %%, %+.3f %%)\n", name, r.span[0], r.span[1],
              r.predicted, 100.0 * (r.span[0] / r.predicted - 1.0), 100.0 * (r.span[1] / r.predicted - 1.0));
}

// Issue 33's bounds: 0.2 % at 24 x 4, 0.5 % at 12 x 4 (measured +0.06 % and +0.26 %; without the
// element's sag +0.19 % and +2.6 %). The nodes are cut from the path, so here they sit on the
// points where the spans meet the wraps; an element across such a point cannot follow the
// straight-to-arc step of the curvature and bulges out (the same belt with its nodes half an
// element further: +0.39 % at 24, +2.9 % at 12 elements; issue 33's notes).
TEST(SegmentArcGap, BeltAtRestCarriesThePitchLinePathsTensionAt24Elements) {
  const WrapResult r = staticWrap<24>(SegmentGapMeasure::kArc, false);
  ASSERT_TRUE(r.ok);
  report("24 x 4, arc gap", r);
  EXPECT_LT(worstRelativeError(r), 2e-3);
}

TEST(SegmentArcGap, BeltAtRestCarriesThePitchLinePathsTensionAt12Elements) {
  const WrapResult r = staticWrap<12>(SegmentGapMeasure::kArc, false);
  const WrapResult chord = staticWrap<12>(SegmentGapMeasure::kChord, false);
  ASSERT_TRUE(r.ok);
  ASSERT_TRUE(chord.ok);
  report("12 x 4, arc gap", r);
  report("12 x 4, chord gap", chord);
  EXPECT_LT(worstRelativeError(r), 5e-3);
  EXPECT_GT(worstRelativeError(chord), 5e-2);  // the paper's gap on the same belt: +11 %
}

TEST(SegmentArcGap, CubicElementOnACircleSagsByTheHermiteRemainder) {
  // The element's own sag the arc gap allows for: the cubic through two nodes on a circle of
  // radius r at +-alpha, with the circle's unit tangents (arc-length parametrisation, L = 2 alpha r),
  // lies inside the circle by r (alpha^2 - phi^2)^2 / 24 (Hermite interpolation remainder
  // f''''/4! (phi^2 - alpha^2)^2 of the circle's position, whose fourth derivative is the position
  // itself), so by e_m = r alpha^4 / 24 at its middle and 16 xi^2 (1 - xi)^2 e_m along it. The
  // remainder's next term is of order alpha^6: 0.5 % of e_m at the 24-element mesh (alpha 0.26).
  const double r = kRadius, length = 2.0 * detmath::kPi * r / 12.0;  // 24 elements on the paper's drive
  const double alpha = 0.5 * length / r;
  Vector8 q;
  for (int node = 0; node < 2; ++node) {
    const double phi = node == 0 ? alpha : -alpha;  // clockwise, from left of the top to its right
    q(4 * node) = -r * std::sin(phi);
    q(4 * node + 1) = r * std::cos(phi);
    q(4 * node + 2) = std::cos(phi);
    q(4 * node + 3) = std::sin(phi);
  }
  const double sag = cubicArcSag(length, r);
  for (double xi : {0.25, 0.5, 0.75}) {
    const HermiteShape<double> h = HermiteShape<double>::at(xi * length, length);
    const double inside = r - HermiteShape<double>::interpolate(h.s, q).norm();
    const double predicted = 16.0 * xi * xi * (1.0 - xi) * (1.0 - xi) * sag;
    std::printf("xi %.2f: inside by %.4e m, predicted %.4e m\n", xi, inside, predicted);
    EXPECT_NEAR(inside, predicted, 1e-2 * sag);
  }
}

TEST(SegmentArcGap, PapersChordGapOverTensionsTheCoarseBeltByItsSag) {
  // The same belt with the paper's chord gap: the sag L_s^2 / (8 r) of every segment lengthens each
  // wrap of angle pi by pi L_s^2 / (8 r), so the tension rises by EA 2 pi L_s^2 / (8 r L_belt)
  // (8.6 N at 24 x 4 on the paper's belt), less the penetration under 400 N (0.5 N). The bias must
  // show: at least half of that prediction, and beyond the corrected test's bound.
  const WrapResult r = staticWrap<24>(SegmentGapMeasure::kChord, false);
  ASSERT_TRUE(r.ok);
  report("24 x 4, chord gap", r);
  const double segment = (2.0 * kCentreDistance + 2.0 * detmath::kPi * (kRadius + 0.5 * kThickness)) / (24 * kNCS);
  const double sag = 2.0 * detmath::kPi * segment * segment / (8.0 * kRadius);
  const double predictedBias = paperBelt().element.EA * sag / (24 * kNCS * segment);
  std::printf("sag predicts +%.3f N\n", predictedBias);
  EXPECT_GT(r.span[0] - r.predicted, 0.5 * predictedBias);
  EXPECT_GT(r.span[1] - r.predicted, 0.5 * predictedBias);
  EXPECT_GT(worstRelativeError(r), 1e-2);
}

TEST(SegmentArcGap, CompensationRemovesThePenetrationOfASoftContact) {
  // A tenth of the paper's contact stiffness (the microcontroller configuration's): uncompensated,
  // the belt sinks T / (r b k_c) = 0.125 mm into each pulley under 400 N, which shortens its path by
  // 2 pi times that and lowers the tension by about 2.0 N (0.5 %). Compensated, the tension is the
  // pitch-line path's again, up to the element's share.
  const WrapResult sunk = staticWrap<24>(SegmentGapMeasure::kArc, false, 0.1);
  const WrapResult compensated = staticWrap<24>(SegmentGapMeasure::kArc, true, 0.1);
  ASSERT_TRUE(sunk.ok);
  ASSERT_TRUE(compensated.ok);
  report("24 x 4, arc gap, soft contact", sunk);
  report("24 x 4, arc gap, soft contact, compensated", compensated);
  // Measured: -1.09 % sunk, +0.14 % compensated.
  EXPECT_LT(sunk.span[0] / sunk.predicted - 1.0, -5e-3);
  EXPECT_LT(sunk.span[1] / sunk.predicted - 1.0, -5e-3);
  EXPECT_LT(worstRelativeError(compensated), 3.5e-3);
}

// The element's axial rule (issue 33). Scheme c evaluates the axial force at the element's two
// nodes and its middle (Lobatto 3, the paper's choice); rule b at four Gauss points (Gauss 4,
// converged: Gauss 5, rule a, gives the same tail means within 0.01 points in motion). An element
// across a point where a span meets a wrap carries a strain that varies along it, and the Lobatto
// rule's nodal weight over-counts it: the static bias, averaged over eight positions of the mesh
// along the belt (an eighth of an element apart, both spans), measured +0.224 % with c and +0.092 %
// with b at 24 x 4 (worst position +0.54 % and +0.34 %). In motion the paper's drive at 24 elements
// (1e-4 s) moves from F2 +1.47 % to +1.15 % and the 30-element mesh into the 1 % bound (+0.81 %).
double meanStaticBiasOverShifts(AxialRule rule) {
  double sum = 0.0;
  for (int k = 0; k < 8; ++k) {
    const WrapResult r = staticWrap<24>(SegmentGapMeasure::kArc, false, 1.0, rule, k / 8.0);
    EXPECT_TRUE(r.ok) << "shift " << k << "/8";
    if (!r.ok) return 1.0;
    sum += r.span[0] / r.predicted + r.span[1] / r.predicted - 2.0;
  }
  return sum / 16.0;
}

TEST(SegmentArcGap, GaussAxialRuleHalvesTheStaticBiasOverMeshPositions) {
  const double lobatto = meanStaticBiasOverShifts(AxialRule::kC);
  const double gauss = meanStaticBiasOverShifts(AxialRule::kB);
  std::printf("24 x 4, arc gap, mean over 8 mesh positions: rule c %+.3f %%, rule b %+.3f %%\n",
              100.0 * lobatto, 100.0 * gauss);
  EXPECT_GT(lobatto, 1.8e-3);
  EXPECT_LT(std::fabs(gauss), 1.5e-3);
  EXPECT_LT(std::fabs(gauss), 0.6 * lobatto);
}

}  // namespace
