// The belt on an eulerian mesh (docs/model_element.md §2.10): the inertia of the material that
// flows through the elements, checked against finite differences, an independent quadrature, and
// three analytic results of axially moving strings: the centrifugal tension of a spinning ring,
// the transverse frequencies of a travelling span (Wickert and Mote) and the conservation of
// energy of a closed belt running on a frictionless support.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "beltsim/contact/anchor_transport.hpp"
#include "flow_through_inertia.hpp"
#include "beltsim/element/material_velocity.hpp"
#include "beltsim/stepping/reference_stepper.hpp"
#include "flow_through_loop.hpp"
#include "gyroscopic_modes.hpp"

namespace {

using beltsim::FlowThroughInertia;
using beltsim::FlowThroughTerms;
using beltsim::Status;
using Vector8 = FlowThroughInertia::Vector8;

constexpr double kPi = 3.14159265358979323846;

// The paper's belt (docs/model_start_and_benchmark.md §9.1): EA = 8000 N, rho A = 0.8288 kg/m, eps0 = -0.05; the
// bending stiffness is made small so that the string results apply (its share is stated per test).
beltsim::AncfCable2D<double>::Parameters beltParameters(double length, double EI) {
  beltsim::AncfCable2D<double>::Parameters p;
  p.length = length;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = EI;
  p.referenceAxialStrain = -0.05;
  return p;
}

Vector8 randomVector(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Vector8 x;
  for (int i = 0; i < 8; ++i) x(i) = u(rng);
  return x;
}

// Node k of a ring of n equal elements with centre c, radius R, counter-clockwise, slope of
// length `stretch` (|r'| = 1 + eps).
template <typename Vector>
void ringNode(Vector& q, int k, int n, double R, double stretch, double cx = 0.0, double cy = 0.0) {
  const double theta = 2.0 * kPi * k / n;
  q(4 * k) = cx + R * std::cos(theta);
  q(4 * k + 1) = cy + R * std::sin(theta);
  q(4 * k + 2) = -stretch * std::sin(theta);
  q(4 * k + 3) = stretch * std::cos(theta);
}

}  // namespace

// The configuration-dependent mass matrix's 8x8 block is the element's consistent mass matrix
// (docs/model_element.md §2.3, rho A L / 420 [156 22L 54 -13L; ...]), computed independently.
TEST(FlowThroughInertia, MassBlockIsTheElementsConsistentMassMatrix) {
  beltsim::AncfCable2D<double> element;
  ASSERT_TRUE(element.setUp(beltParameters(0.037, 0.0)).ok());
  FlowThroughInertia flow;
  ASSERT_TRUE(flow.setUp(0.037, 0.8288).ok());
  FlowThroughTerms t;
  const Vector8 q = Vector8::Zero();
  ASSERT_EQ(flow.evaluate(q, q, q, 0.0, 0.0, t), Status::kOk);
  EXPECT_LT((t.byAcceleration.topLeftCorner<8, 8>() - element.massMatrix()).norm(),
            1e-14 * element.massMatrix().norm());
}

// Kinetic energy 1/2 q_dot^T M q_dot + v q_dot^T M1 q + v^2/2 q^T M2 q against the integral of
// 1/2 rho A |r_dot + v r'|^2 with 5-point Gauss-Legendre (exact for the degree-6 integrand).
TEST(FlowThroughInertia, KineticEnergyIsTheIntegralOfTheMaterialVelocitySquared) {
  const double length = 0.05, rhoA = 0.8288, v = 7.3;
  FlowThroughInertia flow;
  ASSERT_TRUE(flow.setUp(length, rhoA).ok());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 5; ++trial) {
    const Vector8 q = randomVector(rng, 1.0), qDot = randomVector(rng, 2.0);
    double reference = 0.0;
    for (int i = 0; i < beltsim::kGaussLegendre5.kPoints; ++i) {
      const double x = 0.5 * length * (1.0 + beltsim::kGaussLegendre5.points[i]);
      const auto h = beltsim::HermiteShape<double>::at(x, length);
      const Eigen::Vector2d u = beltsim::HermiteShape<double>::interpolate(h.s, qDot) +
                                v * beltsim::HermiteShape<double>::interpolate(h.ds, q);
      reference += 0.5 * length * beltsim::kGaussLegendre5.weights[i] * 0.5 * rhoA * u.squaredNorm();
    }
    EXPECT_NEAR(flow.kineticEnergy(q, qDot, v), reference, 1e-12 * std::abs(reference));
  }
}

// Every derivative of the inertia terms against central differences of the terms themselves.
TEST(FlowThroughInertia, DerivativesMatchCentralDifferences) {
  FlowThroughInertia flow;
  ASSERT_TRUE(flow.setUp(0.04, 0.8288).ok());
  std::mt19937 rng(11);
  const Vector8 q = randomVector(rng, 0.3), qDot = randomVector(rng, 3.0), qDDot = randomVector(rng, 50.0);
  const double v = 9.1, vDot = -4.2;
  FlowThroughTerms t;
  ASSERT_EQ(flow.evaluate(q, qDot, qDDot, v, vDot, t), Status::kOk);
  double worst = 0.0;
  const double eps = 1e-6;
  for (int level = 0; level < 3; ++level) {
    const FlowThroughTerms::Matrix9& analytic =
        level == 0 ? t.byPosition : level == 1 ? t.byVelocity : t.byAcceleration;
    for (int j = 0; j < 9; ++j) {
      FlowThroughTerms plus, minus;
      Vector8 xp[3] = {q, qDot, qDDot}, xm[3] = {q, qDot, qDDot};
      double sp[3] = {0.0, v, vDot}, sm[3] = {0.0, v, vDot};
      if (j < 8) {
        xp[level](j) += eps;
        xm[level](j) -= eps;
      } else {
        sp[level] += eps;
        sm[level] -= eps;
      }
      ASSERT_EQ(flow.evaluate(xp[0], xp[1], xp[2], sp[1], sp[2], plus), Status::kOk);
      ASSERT_EQ(flow.evaluate(xm[0], xm[1], xm[2], sm[1], sm[2], minus), Status::kOk);
      const FlowThroughTerms::Vector9 fd = (plus.force - minus.force) / (2.0 * eps);
      for (int i = 0; i < 9; ++i) {
        const double scale = 1.0 + std::abs(analytic(i, j));
        worst = std::max(worst, std::abs(fd(i) - analytic(i, j)) / scale);
      }
    }
  }
  std::printf("[figure] material-flow inertia: worst relative derivative error %.2e\n", worst);
  EXPECT_LT(worst, 1e-6);
}

// The slope map T of material_velocity.hpp: S(x) T q = r'(x) and S'(x) T q = r''(x) at every x of
// the element (cubic Hermite interpolation reproduces the quadratic r' exactly), to round-off.
TEST(MaterialVelocity, SlopeRatesInterpolateTheSlopeAndCurvatureEverywhere) {
  const double length = 0.045;
  beltsim::MaterialVelocity material;
  ASSERT_TRUE(material.setUp(length).ok());
  std::mt19937 rng(17);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    const Vector8 q = randomVector(rng, 1.0);
    const Vector8 tq = material.slopeRates(q);
    for (int i = 0; i <= 10; ++i) {
      const auto h = beltsim::HermiteShape<double>::at(length * i / 10.0, length);
      using I = beltsim::HermiteShape<double>;
      worst = std::max(worst, (I::interpolate(h.s, tq) - I::interpolate(h.ds, q)).norm() /
                                  (1.0 + I::interpolate(h.ds, q).norm()));
      worst = std::max(worst, length * (I::interpolate(h.ds, tq) - I::interpolate(h.dds, q)).norm() /
                                  (1.0 + length * I::interpolate(h.dds, q).norm()));
    }
  }
  EXPECT_LT(worst, 1e-13);
}

// The flow mass M1 = int rho A S^T S' dx of flow_through_inertia.hpp is M T (S' = S T): the two
// headers agree.
TEST(MaterialVelocity, FlowMassIsMassTimesSlopeMap) {
  FlowThroughInertia flow;
  ASSERT_TRUE(flow.setUp(0.05, 0.8288).ok());
  beltsim::MaterialVelocity material;
  ASSERT_TRUE(material.setUp(0.05).ok());
  const FlowThroughInertia::Matrix4 product = flow.mass() * material.slopeMap();
  EXPECT_LT((flow.flowMass1() - product).norm(), 1e-13 * flow.flowMass1().norm());
}

// The strain and curvature rates of a material point: a point that sits at mesh point x at time 0
// is at x + v tau at time tau, on the curve q + tau q_dot; the element's section outputs at the
// material rates q_dot + v T q must equal the central differences in tau of its strain and
// curvature (d/dt (eps, K) following the material = mesh rate + v times the gradient).
TEST(MaterialVelocity, ElementRatesAtMaterialRatesFollowTheMaterialPoint) {
  const double length = 0.05, v = 4.5, x = 0.3 * length, dt = 1e-6;
  beltsim::AncfCable2D<double> element;
  ASSERT_TRUE(element.setUp(beltParameters(length, 1.0)).ok());
  beltsim::MaterialVelocity material;
  ASSERT_TRUE(material.setUp(length).ok());
  Vector8 q, qDot;
  q << 0.0, 0.0, 1.02, 0.1, 0.049, 0.006, 0.97, 0.35;
  qDot << 0.1, -0.3, 0.5, 2.0, -0.2, 0.4, -1.0, 0.7;
  beltsim::AncfCable2D<double>::Section at, plus, minus;
  ASSERT_EQ(element.section(q, material.materialRates(q, qDot, v), x, at), Status::kOk);
  ASSERT_EQ(element.section(q + dt * qDot, Vector8::Zero(), x + v * dt, plus), Status::kOk);
  ASSERT_EQ(element.section(q - dt * qDot, Vector8::Zero(), x - v * dt, minus), Status::kOk);
  const double strainRate = (plus.axialStrain - minus.axialStrain) / (2.0 * dt);
  const double curvatureRate = (plus.curvature - minus.curvature) / (2.0 * dt);
  std::printf("[figure] material point: strain rate %.8f (difference %.8f), curvature rate %.8f (difference %.8f)\n",
              at.axialStrainRate, strainRate, at.curvatureRate, curvatureRate);
  EXPECT_NEAR(at.axialStrainRate, strainRate, 1e-6 * (1.0 + std::abs(strainRate)));
  EXPECT_NEAR(at.curvatureRate, curvatureRate, 1e-6 * (1.0 + std::abs(curvatureRate)));
}

namespace {

constexpr int kSamples = 40;
using Anchors = beltsim::MaterialAnchor[kSamples];

// Samples first..last stick with anchors linear in X = j l (a belt stuck to a circle: its
// material's circle coordinates are evenly spaced) and the bristle deflection `deflection`
// (contact coordinate minus anchor); the rest carry no anchor.
void stuckBand(Anchors& field, int first, int last, double spacing, double start, double slope,
               double deflection = 0.0) {
  for (int j = 0; j < kSamples; ++j) {
    field[j] = beltsim::MaterialAnchor{};
    if (j >= first && j <= last) {
      field[j].state = beltsim::StickSlip::kStick;
      field[j].stickingPosition = start + slope * j * spacing;
      field[j].contactCoordinate = field[j].stickingPosition + deflection;
    }
  }
}

}  // namespace

// A uniformly sticking band (anchors linear in X) is carried exactly by any fraction of a
// segment and by several segments, forwards and backwards, edges included: segment i gets the
// anchor of the departure point X_i - d when the sample nearest that point sticks (interpolated
// inside the band, extrapolated along it at its edges), and no anchor otherwise.
TEST(AnchorTransport, UniformStickIsCarriedExactly) {
  const double spacing = 0.005, start = 0.2, slope = -1.03;
  Anchors in, out;
  stuckBand(in, 5, 30, spacing, start, slope);
  for (double share : {0.37, -0.37, 0.9, -0.9, 1.0, 2.37, -3.6}) {
    const double d = share * spacing;
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, spacing, d, 0.0, out), Status::kOk);
    for (int i = 0; i < kSamples; ++i) {
      const double departure = i - share;  // in spacings
      const int nearest = static_cast<int>(std::floor(departure + 0.5));
      if (nearest >= 5 && nearest <= 30) {
        EXPECT_EQ(out[i].state, beltsim::StickSlip::kStick) << "share " << share << " i " << i;
        EXPECT_NEAR(out[i].stickingPosition, start + slope * departure * spacing, 1e-15)
            << "share " << share << " i " << i;
      } else {
        EXPECT_EQ(out[i].state, beltsim::StickSlip::kUndefined) << "share " << share << " i " << i;
      }
    }
  }
}

// On unevenly spaced samples (a graded mesh, docs/model_element.md §2.11) with a travel of its own for each,
// a belt stuck to a circle (anchors and contact coordinates linear in the samples' positions X_j,
// deflection z0) is still carried exactly: inside the band each sample reads the anchor at
// X_j - travel_j; at the band's entry the entering material's contact coordinate is extrapolated
// with the pitch across the entry, so it is X_j - travel_j there too, with the deflection of
// MaterialEnteringContactArrivesUndeflected below. Pitches alternate 4 and 7 mm; the travel is a
// share 0.3 of the pitch crossed plus a slow variation along the belt.
TEST(AnchorTransport, UnevenSamplesCarryAStuckBeltExactly) {
  constexpr double kZ0 = 2e-6, kStart = 0.2, kSlope = -1.03;
  double pitch[kSamples], travel[kSamples], x[kSamples];
  for (int j = 0; j < kSamples; ++j) pitch[j] = j % 2 == 0 ? 0.004 : 0.007;
  x[0] = 0.0;
  for (int j = 1; j < kSamples; ++j) x[j] = x[j - 1] + pitch[j - 1];
  for (int j = 0; j < kSamples; ++j) travel[j] = (0.3 + 0.002 * j) * pitch[j == 0 ? kSamples - 1 : j - 1];
  Anchors in, out;
  for (int j = 0; j < kSamples; ++j) {
    in[j] = beltsim::MaterialAnchor{};
    in[j].gap = 0.1;  // no contact
    if (j >= 5 && j <= 30) {
      in[j].state = beltsim::StickSlip::kStick;
      in[j].stickingPosition = kStart + kSlope * x[j];
      in[j].contactCoordinate = in[j].stickingPosition + kZ0;
      in[j].gap = -1e-5;
    }
  }
  ASSERT_EQ(beltsim::transportAnchors(in, kSamples, pitch, travel, 0.0, out), Status::kOk);
  for (int j = 6; j <= 30; ++j) {
    const double departure = x[j] - travel[j];
    EXPECT_NEAR(out[j].stickingPosition, kStart + kSlope * departure, 1e-15) << "sample " << j;
  }
  // The entry (sample 5, reading between sample 4, outside, and 5): the contact coordinate at the
  // departure point, and no deflection (the gaps put the contact's start at the inside sample).
  const double departure = x[5] - travel[5];
  EXPECT_NEAR(out[5].contactCoordinate, kStart + kSlope * departure + kZ0, 1e-15);
  EXPECT_NEAR(out[5].stickingPosition, out[5].contactCoordinate, 1e-15);
  // A travel round the whole belt is refused, and nothing moves.
  travel[10] = 1.01 * (x[kSamples - 1] + pitch[kSamples - 1]);
  EXPECT_EQ(beltsim::transportAnchors(in, kSamples, pitch, travel, 0.0, out), Status::kInvalidParameter);
  EXPECT_EQ(out[10].stickingPosition, in[10].stickingPosition);
}

// Material that was not in contact arrives without an anchor (the post-Newton step anchors it
// where it touches); the band's edge moves with the material, to the nearer sample.
TEST(AnchorTransport, MaterialWithoutContactArrivesWithoutAnAnchor) {
  const double spacing = 0.005;
  Anchors in, out;
  stuckBand(in, 5, 30, spacing, 0.2, -1.0);
  ASSERT_EQ(beltsim::transportAnchors(in, kSamples, spacing, 0.7 * spacing, 0.0, out), Status::kOk);
  EXPECT_EQ(out[5].state, beltsim::StickSlip::kUndefined);  // departure 0.7 l upstream: nearer sample 4
  EXPECT_EQ(out[6].state, beltsim::StickSlip::kStick);
  EXPECT_EQ(out[31].state, beltsim::StickSlip::kStick);    // nearer sample 30
  EXPECT_EQ(out[32].state, beltsim::StickSlip::kUndefined);
}

// Material that enters contact arrives undeflected: at a band's entry the deflection (contact
// coordinate minus anchor) at the departure point is interpolated between none upstream and the
// band's, so a band whose bristles all carry z0 gives the segment at its entry share * z0, with
// share the departure point's distance from the sample without contact in spacings, whichever way
// the material flows; inside the band the deflection stays z0. Carrying the band's deflection
// into the entering material instead would let a sticking zone hold a tension change at a
// contact's entry (docs/model_contact.md §4.12).
TEST(AnchorTransport, MaterialEnteringContactArrivesUndeflected) {
  const double spacing = 0.005, start = 0.2, slope = -1.03, z0 = 2.0e-5;
  Anchors in, out;
  stuckBand(in, 5, 30, spacing, start, slope, z0);
  for (double share : {0.37, -0.37}) {
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, spacing, share * spacing, 0.0, out), Status::kOk);
    for (int i = 5; i <= 30; ++i) {
      const double departure = i - share;  // in spacings
      const double contactThere = start + slope * departure * spacing + z0;  // x_c of that material
      const double entryShare = share > 0 ? departure - 4.0 : 31.0 - departure;
      const double expected = (share > 0 ? i == 5 : i == 30) ? entryShare * z0 : z0;
      EXPECT_EQ(out[i].state, beltsim::StickSlip::kStick) << "share " << share << " i " << i;
      EXPECT_NEAR(contactThere - out[i].stickingPosition, expected, 1e-15) << "share " << share << " i " << i;
    }
  }
}

// The contact starts where the gaps of the sample without contact (+1e-5 m) and of the band's
// first sample (-3e-5 m) interpolate to zero, a quarter of the way: material that has not reached
// that point is undeflected, material past it carries the band's deflection times the share of
// the way it has come into contact, (s - 1/4) / (3/4).
TEST(AnchorTransport, EnteringMaterialIsDeflectedFromWhereTheGapsCrossZero) {
  const double spacing = 0.005, start = 0.2, slope = -1.03, z0 = 2.0e-5;
  Anchors in, out;
  stuckBand(in, 5, 30, spacing, start, slope, z0);
  for (int j = 0; j < kSamples; ++j) in[j].gap = j >= 5 && j <= 30 ? -3.0e-5 : 1.0e-5;
  for (double share : {0.37, 0.9, -0.37, -0.9}) {
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, spacing, share * spacing, 0.0, out), Status::kOk);
    const int entry = share > 0 ? 5 : 30;
    const double departure = entry - share;
    const double fromFresh = share > 0 ? departure - 4.0 : 31.0 - departure;  // s
    const double expected = fromFresh > 0.25 ? (fromFresh - 0.25) / 0.75 * z0 : 0.0;
    const double contactThere = start + slope * departure * spacing + z0;
    if (fromFresh >= 0.5) {
      EXPECT_EQ(out[entry].state, beltsim::StickSlip::kStick) << "share " << share;
      EXPECT_NEAR(contactThere - out[entry].stickingPosition, expected, 1e-15) << "share " << share;
    } else {
      EXPECT_EQ(out[entry].state, beltsim::StickSlip::kUndefined) << "share " << share;  // nearer the fresh sample
    }
  }
}

// Ten steps of a tenth of a segment carry a stuck band's anchors, edges included, by one whole
// segment, to round-off (no smearing of a linear field), as one shift by a whole segment would.
// Which samples stick stays: each step the sample nearest every departure point is the sample
// itself. On a drive the contact flags, not the transport, move the band's ends.
TEST(AnchorTransport, SmallStepsAddUpToAWholeSegment) {
  const double spacing = 0.004, start = 0.05, slope = -0.98;
  Anchors field, next;
  stuckBand(field, 3, 35, spacing, start, slope);
  for (int step = 0; step < 10; ++step) {
    ASSERT_EQ(beltsim::transportAnchors(field, kSamples, spacing, 0.1 * spacing, 0.0, next), Status::kOk);
    for (int j = 0; j < kSamples; ++j) field[j] = next[j];
  }
  for (int i = 3; i <= 35; ++i) {
    EXPECT_EQ(field[i].state, beltsim::StickSlip::kStick) << "i " << i;
    EXPECT_NEAR(field[i].stickingPosition, start + slope * (i - 1) * spacing, 1e-14) << "i " << i;
  }
  EXPECT_EQ(field[2].state, beltsim::StickSlip::kUndefined);
  EXPECT_EQ(field[36].state, beltsim::StickSlip::kUndefined);
}

// Anchors that run over the circle's period (coordinates wrap at 2 pi r) are interpolated by
// their wrapped difference: the result stays within a segment of the exact one, not half a
// circle away.
TEST(AnchorTransport, AnchorsAcrossTheCirclesPeriodStayContinuous) {
  const double spacing = 0.005, period = 2.0 * kPi * 0.1;
  Anchors in, out;
  stuckBand(in, 0, kSamples - 1, spacing, period - 20.5 * spacing, 1.0);
  for (int j = 0; j < kSamples; ++j)  // wrapped into [0, period)
    if (in[j].stickingPosition >= period) in[j].stickingPosition -= period;
  ASSERT_EQ(beltsim::transportAnchors(in, kSamples, spacing, 0.5 * spacing, period, out), Status::kOk);
  for (int i = 1; i < kSamples; ++i) {
    const double expected = period - 20.5 * spacing + (i - 0.5) * spacing;
    EXPECT_NEAR(beltsim::wrappedDifference(out[i].stickingPosition - expected, period), 0.0, 1e-14) << "i " << i;
  }
}

// The anchor's slope by the travel (anchorPerTravel, the implicit half of the transport,
// carried_anchor.hpp) is the derivative of the carried anchor: for every sample, inside the band,
// at its entry (gaps crossing zero a quarter of the way: the derivative of the entering material's
// contact coordinate, docs/model_contact.md §4.12) and at its trailing edge, for travels of
// part of a pitch and of several, and for a sample that did not move (its upstream neighbour's
// slope), the central difference of the transport by +-1e-6 of a pitch agrees within 1e-6 of the
// anchors' slope along the belt. Uneven pitches of 4 and 7 mm, material flowing both ways,
// deflection z0 in the band.
TEST(AnchorTransport, AnchorSlopeIsTheDerivativeByTheTravel) {
  constexpr double kZ0 = 2e-5, kSlope = -1.03;
  double pitch[kSamples], x[kSamples];
  for (int j = 0; j < kSamples; ++j) pitch[j] = j % 2 == 0 ? 0.004 : 0.007;
  x[0] = 0.0;
  for (int j = 1; j < kSamples; ++j) x[j] = x[j - 1] + pitch[j - 1];
  Anchors in, out, plus, minus;
  for (int j = 0; j < kSamples; ++j) {
    in[j] = beltsim::MaterialAnchor{};
    in[j].gap = 1e-5;
    if (j >= 5 && j <= 30) {
      in[j].state = beltsim::StickSlip::kStick;
      in[j].stickingPosition = 0.2 + kSlope * x[j] + 1e-4 * std::sin(40.0 * x[j]);  // not quite linear
      in[j].contactCoordinate = in[j].stickingPosition + kZ0;
      in[j].gap = -3e-5;
    }
  }
  int checked = 0;
  for (double share : {0.3, -0.3, 0.8, -0.8, 2.3, -1.8}) {
    double travel[kSamples], up[kSamples], down[kSamples], perTravel[kSamples];
    for (int j = 0; j < kSamples; ++j) {
      const double crossed = share > 0 ? pitch[j == 0 ? kSamples - 1 : j - 1] : pitch[j];
      travel[j] = j == 17 ? 0.0 : share * crossed;
      const double eps = 1e-6 * crossed;  // the transport is linear in the travel between two samples
      up[j] = travel[j] + eps;
      down[j] = travel[j] - eps;
    }
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, pitch, travel, 0.0, out, perTravel), Status::kOk);
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, pitch, up, 0.0, plus), Status::kOk);
    ASSERT_EQ(beltsim::transportAnchors(in, kSamples, pitch, down, 0.0, minus), Status::kOk);
    for (int j = 0; j < kSamples; ++j) {
      if (j == 17) {  // did not move: the slope from sample 16 to 17
        EXPECT_NEAR(perTravel[j], -(in[17].stickingPosition - in[16].stickingPosition) / pitch[16], 1e-12);
        continue;
      }
      if (out[j].state == beltsim::StickSlip::kUndefined) {
        EXPECT_EQ(perTravel[j], 0.0) << "share " << share << " sample " << j;
        continue;
      }
      // At the entry (the departure point between sample 4, outside, and 5, or between 30 and 31)
      // only the contact coordinate's part: the entering material's share of the deflection stays.
      const double departure = x[j] - travel[j];
      const bool entry = (departure > x[4] && departure < x[5]) || (departure > x[30] && departure < x[31]);
      const double difference =
          entry ? (plus[j].contactCoordinate - minus[j].contactCoordinate) / (up[j] - down[j])
                : (plus[j].stickingPosition - minus[j].stickingPosition) / (up[j] - down[j]);
      EXPECT_NEAR(perTravel[j], difference, 1e-6) << "share " << share << " sample " << j << (entry ? " (entry)" : "");
      ++checked;
    }
  }
  EXPECT_GT(checked, 130);
}

// A shift round the whole belt or further (40 samples of 5 mm: 0.2 m), or a bad spacing, is
// refused and changes nothing.
TEST(AnchorTransport, RefusesShiftsOfTheWholeBelt) {
  Anchors in, out;
  stuckBand(in, 5, 30, 0.005, 0.2, -1.0);
  EXPECT_EQ(beltsim::transportAnchors(in, kSamples, 0.005, 0.201, 0.0, out), Status::kInvalidParameter);
  EXPECT_EQ(beltsim::transportAnchors(in, kSamples, 0.005, -0.21, 0.0, out), Status::kInvalidParameter);
  EXPECT_EQ(beltsim::transportAnchors(in, kSamples, 0.0, 0.001, 0.0, out), Status::kInvalidParameter);
  for (int j = 0; j < kSamples; ++j) {
    EXPECT_EQ(out[j].state, in[j].state);
    EXPECT_EQ(out[j].stickingPosition, in[j].stickingPosition);
  }
}

// A ring spinning freely with spatial speed V = v (1 + eps) is in equilibrium when its tension
// carries the centripetal force: T = rho A_0 V^2 / (1 + eps) = rho A_0 v^2 (1 + eps) (rho A_0 /
// (1 + eps) is the mass per current length). The static solution of the model (velocity terms at
// q_dot = 0, v held), 24 elements, must give T = EA (eps - eps0) equal to that within 0.1 %, with
// eps the ring's stretch (its circumference 2 pi R over its reference length), for every axial
// rule. (The nodal |r'| - 1 of the Lobatto rule c is 0.3 % of T off the stretch: that rule's
// nodal strain, not the balance, docs/model_differences.md §10.29.) Bending (EI = 1e-6 N m^2) changes T by
// EI / (2 R^2) = 5e-5 N of 330 N.
TEST(FlowThroughBelt, SpinningRingCarriesTheCentrifugalTension) {
  constexpr int n = 24;
  using Loop = beltsim_test::FlowThroughLoop<n>;
  const double R0 = 0.1, v = 20.0, rhoA = 0.8288, EA = 8000.0, eps0 = -0.05;
  const double length = 2.0 * kPi * R0 / n;
  for (beltsim::AxialRule rule : {beltsim::AxialRule::kA, beltsim::AxialRule::kB, beltsim::AxialRule::kC}) {
    Loop loop;
    beltsim::AncfCable2D<double>::Parameters p = beltParameters(length, 1e-6);
    p.axialRule = rule;
    ASSERT_TRUE(loop.setUp(p, Loop::Support{}));
    // Rigid motions and the gauge: node 0 held in x and y, node n/2 in y (rotation). v is given.
    const int held[4] = {0, 1, 4 * (n / 2) + 1, Loop::kTransport};
    auto q = std::make_unique<Loop::Vector>(), qDot = std::make_unique<Loop::Vector>(),
         zero = std::make_unique<Loop::Vector>(), r = std::make_unique<Loop::Vector>();
    auto k = std::make_unique<Loop::Matrix>();
    q->setZero();
    // Node 0 at (R0, 0) is held there; the ring may shrink or grow about it.
    for (int i = 0; i < n; ++i) ringNode(*q, i, n, R0, 1.0);
    qDot->setZero();
    (*qDot)(Loop::kTransport) = v;
    zero->setZero();
    double norm = 0.0;
    for (int it = 0; it < 30; ++it) {
      ASSERT_EQ(loop.assemble(*q, *qDot, *zero, *r, nullptr, k.get(), nullptr), Status::kOk);
      for (int i : held) {
        (*r)(i) = 0.0;
        k->row(i).setZero();
        (*k)(i, i) = 1.0;
      }
      norm = r->norm();
      if (norm < 1e-9) break;
      *q -= k->partialPivLu().solve(*r);
    }
    ASSERT_LT(norm, 1e-9);
    const double radius = 0.5 * ((*q)(0) - (*q)(4 * (n / 2)));
    const double eps = 2.0 * kPi * radius / (n * length) - 1.0;
    const double tension = EA * (eps - eps0);
    const double expected = rhoA * v * v * (1.0 + eps);
    const double error = (tension - expected) / expected;
    std::printf("[figure] spinning ring, v = %.1f m/s, axial rule %d: eps %.6f, T %.4f N, rho A v^2 (1+eps) %.4f N, error %+.4f %%\n",
                v, static_cast<int>(rule), eps, tension, expected, 100.0 * error);
    EXPECT_LT(std::abs(error), 1e-3);
  }
}

namespace {

// Lowest three transverse frequencies [rad/s] of a straight span pinned at both ends (positions
// held, slopes free), n elements, stretched to 1 + eps, material moving at v (reference length
// per second), from the linearised gyroscopic eigenproblem M x'' + G x' + K x = 0 with
// G = 2 v M1, K = K_int + v^2 (B1 - M2) (docs/model_element.md §2.10); the first mode's turn from L/4 to 3L/4.
using SpanModes = beltsim::test::TransverseModes;

SpanModes spanModes(int n, double spanLength, double eps, double v, double EI) {
  const double stretch = 1.0 + eps;
  const double length = spanLength / (n * stretch);  // reference length of one element
  beltsim::AncfCable2D<double> element;
  FlowThroughInertia flow;
  SpanModes out;
  if (!element.setUp(beltParameters(length, EI)).ok() || !flow.setUp(length, 0.8288).ok()) return out;
  const int dof = 4 * (n + 1);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(dof, dof), G = M, K = M;
  for (int e = 0; e < n; ++e) {
    Vector8 qe;
    qe << e * length * stretch, 0.0, stretch, 0.0, (e + 1) * length * stretch, 0.0, stretch, 0.0;
    Vector8 force;
    beltsim::AncfCable2D<double>::Matrix8 kq, kv;
    if (element.internalForceAndJacobian(qe, Vector8::Zero(), force, kq, kv) != Status::kOk) return out;
    FlowThroughTerms t;
    if (flow.evaluate(qe, Vector8::Zero(), Vector8::Zero(), v, 0.0, t) != Status::kOk) return out;
    M.block<8, 8>(4 * e, 4 * e) += t.byAcceleration.topLeftCorner<8, 8>();
    G.block<8, 8>(4 * e, 4 * e) += t.byVelocity.topLeftCorner<8, 8>();
    K.block<8, 8>(4 * e, 4 * e) += kq + t.byPosition.topLeftCorner<8, 8>();
  }
  // Free unknowns: everything but the end nodes' positions; y and y' move the span across.
  std::vector<int> free;
  for (int i = 0; i < dof; ++i)
    if (!(i == 0 || i == 1 || i == 4 * n || i == 4 * n + 1)) free.push_back(i);
  return beltsim::test::transverseModes(M, G, K, free, [](int i) { return i % 2 == 1; }, 4 * (n / 4) + 1,
                                        4 * (3 * n / 4) + 1);
}

}  // namespace

// Travelling span (Wickert and Mote, J. Appl. Mech. 57 (1990) 738): a string of spatial length
// L, tension T, wave speed c^2 = T (1 + eps) / rho A_0, moving at spatial speed V, has the
// transverse frequencies omega_n = (n pi / L) (c^2 - V^2) / c and the complex mode shapes
// sin(n pi x / L) exp(i omega_n V x / (c^2 - V^2)): the first mode's phase turns by pi V / (2 c)
// from x = L/4 to 3L/4 (with time factor exp(i omega t); this fixes the sign of the Coriolis term
// 2 v M1, which the frequencies do not see). 20 elements, EI = 1e-4 N m^2 (its share of
// omega_3^2 is EI (3 pi / L)^2 / T = 9e-5). Frequencies within 1 % at V = 0 and V = c / 2, the turn
// within 1 % of pi / 4 at V = c / 2 (0 at V = 0).
TEST(FlowThroughBelt, TravellingSpanHasTheWickertMoteFrequencies) {
  const double spanLength = 0.5, eps = 0.0, eps0 = -0.05, rhoA = 0.8288, EA = 8000.0;
  const double tension = EA * (eps - eps0);
  const double c = std::sqrt(tension * (1.0 + eps) / rhoA);
  for (double fraction : {0.0, 0.5}) {
    const double V = fraction * c;
    const SpanModes modes = spanModes(20, spanLength, eps, V / (1.0 + eps), 1e-4);
    ASSERT_GE(modes.omega.size(), 3u);
    for (int mode = 1; mode <= 3; ++mode) {
      const double expected = mode * kPi / spanLength * (c * c - V * V) / c;
      const double error = (modes.omega[mode - 1] - expected) / expected;
      std::printf("[figure] travelling span V = %.2f c, mode %d: %.4f rad/s, Wickert-Mote %.4f, error %+.4f %%\n",
                  fraction, mode, modes.omega[mode - 1], expected, 100.0 * error);
      EXPECT_LT(std::abs(error), 0.01);
    }
    const double turn = kPi * V / (2.0 * c);
    std::printf("[figure] travelling span V = %.2f c: first mode turns %.5f rad from L/4 to 3L/4, expected %.5f\n",
                fraction, modes.firstModeTurn, turn);
    EXPECT_NEAR(modes.firstModeTurn, turn, 0.01 * kPi / 4.0);
  }
}

namespace {

struct RingRun {
  double energyDrift = 1e300;  // max |E(t) - E(0)| / E(0) over the run
  double transportChange = 1e300;
  int flaggedSteps = -1;
};

// A closed belt of 16 elements running at V on a frictionless circular support of radius R (a
// belt fully wrapped on a frictionless pulley), started from its static running state with a
// transverse kick, integrated with the trapezoidal rule for `duration`.
RingRun runKickedRing(double V, double h, double duration) {
  constexpr int n = 16;
  using Loop = beltsim_test::FlowThroughLoop<n>;
  const double R = 0.1, k = 2e5;
  Loop::Support support;
  support.active = true;
  support.radius = R;
  support.stiffness = k;
  Loop loop;
  RingRun run;
  if (!loop.setUp(beltParameters(2.0 * kPi * R / n, 1e-4), support)) return run;
  auto q = std::make_unique<Loop::Vector>(), qDot = std::make_unique<Loop::Vector>(),
       a = std::make_unique<Loop::Vector>(), r = std::make_unique<Loop::Vector>();
  auto mass = std::make_unique<Loop::Matrix>(), kq = std::make_unique<Loop::Matrix>();
  q->setZero();
  for (int i = 0; i < n; ++i) ringNode(*q, i, n, R, 1.0);
  qDot->setZero();
  (*qDot)(Loop::kTransport) = V;  // eps = 0 at the start: V = v
  a->setZero();
  // Gauge: node 0 at (R, 0) keeps its tangential (y) position.
  const int gauge = 1;
  // Static running state at v: Newton on q with the transport coordinate held.
  for (int it = 0; it < 30; ++it) {
    if (loop.assemble(*q, *qDot, *a, *r, nullptr, kq.get(), nullptr) != Status::kOk) return run;
    for (int i : {gauge, Loop::kTransport}) {
      (*r)(i) = 0.0;
      kq->row(i).setZero();
      (*kq)(i, i) = 1.0;
    }
    if (r->norm() < 1e-9) break;
    *q -= kq->partialPivLu().solve(*r);
  }
  // Transverse kick: radial velocity 0.5 cos(2 theta) m/s (positions and slopes consistent).
  for (int i = 0; i < n; ++i) {
    const double theta = 2.0 * kPi * i / n, u = 0.5 * std::cos(2.0 * theta), du = -1.0 * std::sin(2.0 * theta) / R;
    const Eigen::Vector2d nrm(std::cos(theta), std::sin(theta)), tan(-std::sin(theta), std::cos(theta));
    const Eigen::Vector2d vel = u * nrm, slopeRate = du * nrm + u / R * tan;
    (*qDot)(4 * i) = vel(0);
    (*qDot)(4 * i + 1) = i == 0 ? 0.0 : vel(1);
    (*qDot)(4 * i + 2) = slopeRate(0);
    (*qDot)(4 * i + 3) = slopeRate(1);
  }
  // Consistent initial accelerations.
  loop.hold(gauge);
  a->setZero();
  if (loop.assemble(*q, *qDot, *a, *r, mass.get(), nullptr, nullptr) != Status::kOk) return run;
  (*r)(gauge) = 0.0;
  mass->row(gauge).setZero();
  (*mass)(gauge, gauge) = 1.0;
  *a = -mass->partialPivLu().solve(*r);

  beltsim::IntegratorSettings settings;
  settings.newmark = true;  // trapezoidal rule
  settings.maxNewtonIterations = 10;
  settings.maxPnsIterations = 1;
  beltsim::ReferenceStepper<Loop> stepper;
  if (!stepper.setUp(settings, h).ok()) return run;
  stepper.initialize(*q, *qDot, *a, 0.0);
  const double e0 = loop.kineticEnergy(*q, *qDot) + loop.potentialEnergy(*q);
  const double v0 = (*qDot)(Loop::kTransport);
  double drift = 0.0, transport = 0.0;
  int flagged = 0;
  const int steps = static_cast<int>(duration / h + 0.5);
  for (int s = 0; s < steps; ++s) {
    const beltsim::StepStatistics st = stepper.step(loop);
    if (st.flags != 0) ++flagged;
    const double e = loop.kineticEnergy(stepper.positions(), stepper.velocities()) +
                     loop.potentialEnergy(stepper.positions());
    drift = std::max(drift, std::abs(e - e0) / e0);
    transport = std::max(transport, std::abs(stepper.velocities()(Loop::kTransport) - v0) / v0);
  }
  run.energyDrift = drift;
  run.transportChange = transport;
  run.flaggedSteps = flagged;
  return run;
}

}  // namespace

// Energy: a frictionless, undamped closed belt running at V = c / 2 (c^2 = T (1 + eps) / rho A_0
// with T = 0.05 EA = 400 N: c = 22.0 m/s) with a transverse kick keeps its kinetic energy (on the
// material velocity) plus strain and support energy within 0.5 % over 1 s with the trapezoidal rule
// (step 2.5e-4 s).
TEST(FlowThroughBelt, ClosedBeltOnAFrictionlessSupportConservesEnergy) {
  const double c = std::sqrt(400.0 / 0.8288);
  const RingRun run = runKickedRing(0.5 * c, 2.5e-4, 1.0);
  std::printf("[figure] closed belt at c/2 over 1 s: energy drift %.3e, transport speed change %.3e, flagged steps %d\n",
              run.energyDrift, run.transportChange, run.flaggedSteps);
  EXPECT_EQ(run.flaggedSteps, 0);
  EXPECT_LT(run.energyDrift, 0.005);
}

// The gauge (docs/model_element.md §2.10): sliding every node along the belt's own path while the material
// slides back leaves the material unmoved, so the Newton matrix of a running belt is singular in
// that direction; on a circular support the slide is the rotation of all nodes (positions and
// slopes) about the centre. Measured on the running belt of the energy test (16 elements, V = 11
// m/s, trapezoidal rule, h = 2.5e-4 s): without a gauge the Newton matrix's smallest singular
// value is below 1e-9 of its largest and the stiffness's null vector is the rotation; holding node
// 0's tangential position (y at (R, 0)) lifts it above 1e-8 (the matrix's own conditioning).
TEST(FlowThroughBelt, HoldingOneTangentialPositionRemovesTheSlideOfTheMesh) {
  constexpr int n = 16;
  using Loop = beltsim_test::FlowThroughLoop<n>;
  const double R = 0.1;
  Loop::Support support;
  support.active = true;
  support.radius = R;
  support.stiffness = 2e5;
  Loop loop;
  ASSERT_TRUE(loop.setUp(beltParameters(2.0 * kPi * R / n, 1e-4), support));
  auto q = std::make_unique<Loop::Vector>(), qDot = std::make_unique<Loop::Vector>(),
       a = std::make_unique<Loop::Vector>(), r = std::make_unique<Loop::Vector>();
  auto A = std::make_unique<Loop::Matrix>(), K = std::make_unique<Loop::Matrix>(),
       D = std::make_unique<Loop::Matrix>();
  q->setZero();
  for (int i = 0; i < n; ++i) ringNode(*q, i, n, R, 1.0);
  qDot->setZero();
  (*qDot)(Loop::kTransport) = 11.0;
  a->setZero();
  for (int it = 0; it < 30; ++it) {
    ASSERT_EQ(loop.assemble(*q, *qDot, *a, *r, nullptr, K.get(), nullptr), Status::kOk);
    for (int i : {1, Loop::kTransport}) {
      (*r)(i) = 0.0;
      K->row(i).setZero();
      (*K)(i, i) = 1.0;
    }
    if (r->norm() < 1e-9) break;
    *q -= K->partialPivLu().solve(*r);
  }
  ASSERT_EQ(loop.assemble(*q, *qDot, *a, *r, A.get(), K.get(), D.get()), Status::kOk);
  beltsim::IntegratorSettings settings;
  settings.newmark = true;
  const beltsim::IntegratorCoefficients c = beltsim::IntegratorCoefficients::make(settings, 2.5e-4);
  const Eigen::MatrixXd newton = c.massFactor * *A + c.stiffnessFactor * *K + c.dampingFactor * *D;
  Eigen::MatrixXd gauged = newton;
  gauged.row(1).setZero();
  gauged(1, 1) = 1.0;
  const Eigen::VectorXd free = Eigen::JacobiSVD<Eigen::MatrixXd>(newton).singularValues();
  const Eigen::VectorXd held = Eigen::JacobiSVD<Eigen::MatrixXd>(gauged).singularValues();
  const double freeRatio = free(free.size() - 1) / free(0), heldRatio = held(held.size() - 1) / held(0);
  // The stiffness of the node coordinates (transport column is 0) and its null vector.
  const Eigen::MatrixXd k = K->topLeftCorner(4 * n, 4 * n);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(k, Eigen::ComputeFullV);
  Eigen::VectorXd rotation = Eigen::VectorXd::Zero(4 * n);
  for (int i = 0; i < n; ++i) {
    rotation(4 * i) = -(*q)(4 * i + 1);
    rotation(4 * i + 1) = (*q)(4 * i);
    rotation(4 * i + 2) = -(*q)(4 * i + 3);
    rotation(4 * i + 3) = (*q)(4 * i + 2);
  }
  const double overlap = std::abs(svd.matrixV().col(4 * n - 1).dot(rotation.normalized()));
  std::printf("[figure] gauge: Newton matrix smallest/largest singular value %.2e free, %.2e held; stiffness null vector . rotation = %.6f\n",
              freeRatio, heldRatio, overlap);
  EXPECT_LT(freeRatio, 1e-9);
  EXPECT_GT(heldRatio, 1e-8);
  EXPECT_GT(overlap, 0.999);
}
