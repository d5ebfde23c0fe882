// Stations that move with the layout (model/include/beltsim/system/moving_stations.hpp): each part
// of the path keeps its elements and each element its share of its part, wherever the circles
// move. References: at the drawn centres, the stations eulerianStations chose and the positions
// placeAtStations gives them; at moved centres, the path buildBeltPath draws around them, divided
// in the drawn shares; the closed-form derivatives against central differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/element/eulerian_cable2d.hpp"
#include "beltsim/element/eulerian_flow_inertia.hpp"
#include "beltsim/element/part_stretch.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/system/moving_stations.hpp"
#include "lagrange_rows.hpp"

namespace {

using beltsim::BeltPath;
using beltsim::PathCircle;
using beltsim::Vector2;

constexpr int kMaxPulleys = 4;

// A drive to move: circles on the belt's centreline, in belt order.
struct Layout {
  int count;
  PathCircle circle[kMaxPulleys];
};

// The paper's two pulleys (a wrap's third circle is its first).
Layout twoPulleys() {
  Layout l{2, {}};
  l.circle[0] = {Vector2(0.0, 0.0), 0.1, 1};
  l.circle[1] = {Vector2(0.1 * M_PI, 0.0), 0.1, 1};
  return l;
}

// Two big pulleys and a back-side idler between them, below the lower span.
Layout backSideIdler() {
  Layout l{3, {}};
  l.circle[0] = {Vector2(0.0, 0.0), 0.1, 1};
  l.circle[1] = {Vector2(0.5, 0.0), 0.1, 1};
  l.circle[2] = {Vector2(0.25, -0.11), 0.03005, -1};
  return l;
}

// Four pulleys of different sizes, one of them a small tensioner pulley.
Layout fourPulleys() {
  Layout l{4, {}};
  l.circle[0] = {Vector2(0.0, -0.25), 0.07505, 1};
  l.circle[1] = {Vector2(-0.17, 0.2), 0.05005, 1};
  l.circle[2] = {Vector2(0.22, 0.02), 0.06005, 1};
  l.circle[3] = {Vector2(0.16, -0.16), 0.03005, 1};
  return l;
}

template <int NE>
struct Laid {
  BeltPath<kMaxPulleys> path;
  double station[NE], length[NE];
  int parts[2 * kMaxPulleys];
};

template <int NE>
Laid<NE> layOut(const Layout& layout) {
  Laid<NE> d;
  EXPECT_TRUE(beltsim::buildBeltPath(layout.circle, layout.count, d.path).ok());
  EXPECT_TRUE(beltsim::eulerianStations(d.path, beltsim::MeshGrading{}, d.station, d.length, d.parts).ok());
  return d;
}

template <int NE>
void expectStationsOfTheDrawnPath(const Layout& layout) {
  const Laid<NE> d = layOut<NE>(layout);
  beltsim::MovingStations<NE, kMaxPulleys> stations;
  ASSERT_TRUE(stations.setUp(d.path, d.parts, d.length).ok());
  Eigen::Matrix<double, 4 * NE, 1> nodes;
  beltsim::placeAtStations(d.path, d.station, nodes);
  for (int i = 0; i < NE; ++i) {
    EXPECT_LT((stations.position(i) - nodes.template segment<2>(4 * i)).norm(), 1e-12) << "node " << i;
    EXPECT_NEAR(stations.elementLength(i), d.length[i], 1e-12 * d.length[i]) << "element " << i;
    EXPECT_NEAR(stations.stretch(stations.partOf(i)), 1.0, 1e-12);
  }
}

TEST(MovingStations, AtTheDrawnCentresTheNodesSitAtTheirStations) {
  expectStationsOfTheDrawnPath<16>(twoPulleys());
  expectStationsOfTheDrawnPath<24>(backSideIdler());
  expectStationsOfTheDrawnPath<48>(fourPulleys());
}

// Circles moved by a few millimetres (a tensioner's swing): the new path, divided part by part in
// the drawn shares, its nodes where the path's own pointAt puts those stations.
template <int NE>
void expectTheMovedPathInTheDrawnShares(Layout layout, int moved, Vector2 by) {
  const Laid<NE> d = layOut<NE>(layout);
  beltsim::MovingStations<NE, kMaxPulleys> stations;
  ASSERT_TRUE(stations.setUp(d.path, d.parts, d.length).ok());
  layout.circle[moved].centre += by;
  Vector2 centre[kMaxPulleys];
  for (int p = 0; p < kMaxPulleys; ++p) centre[p] = layout.circle[p].centre;
  ASSERT_EQ(stations.evaluate(centre), beltsim::Status::kOk);
  BeltPath<kMaxPulleys> path;
  ASSERT_TRUE(beltsim::buildBeltPath(layout.circle, layout.count, path).ok());
  double station = 0.0, total = 0.0;
  int e = 0;
  for (int j = 0; j < 2 * layout.count; ++j) {
    const int k = j / 2, circle = (k + 1) % layout.count;
    const double part = j % 2 == 0 ? path.spanLength[k] : path.circle[circle].radius * std::fabs(path.arcSweep[circle]);
    double drawnPart = 0.0;
    for (int m = e; m < e + d.parts[j]; ++m) drawnPart += d.length[m];
    EXPECT_NEAR(stations.partLength(j), part, 1e-12 * part) << "part " << j;
    EXPECT_NEAR(stations.stretch(j), part / drawnPart, 1e-12) << "part " << j;
    for (int m = 0; m < d.parts[j]; ++m, ++e) {
      Vector2 p = Vector2::Zero(), t = Vector2::Zero();
      path.pointAt(station, p, t);
      EXPECT_LT((stations.position(e) - p).norm(), 1e-12) << "node " << e;
      const double length = part * d.length[e] / drawnPart;
      EXPECT_NEAR(stations.elementLength(e), length, 1e-12 * length) << "element " << e;
      station += length;
    }
    total += part;
  }
  EXPECT_NEAR(station, path.totalLength, 1e-12 * total);
}

TEST(MovingStations, AtMovedCentresTheyDivideTheNewPathInTheDrawnShares) {
  expectTheMovedPathInTheDrawnShares<16>(twoPulleys(), 1, Vector2(0.004, -0.002));
  expectTheMovedPathInTheDrawnShares<24>(backSideIdler(), 2, Vector2(0.003, -0.002));
  expectTheMovedPathInTheDrawnShares<48>(fourPulleys(), 3, Vector2(-0.005, 0.004));
}

// The closed-form derivatives of every node's position and every part's length by every centre,
// and the part lengths' second derivatives, against central differences (step 1e-6 m; their truncation error is of order 1e-12 / curvature).
template <int NE>
void expectDerivativesOfCentralDifferences(const Layout& layout) {
  const Laid<NE> d = layOut<NE>(layout);
  beltsim::MovingStations<NE, kMaxPulleys> stations, plus, minus;
  ASSERT_TRUE(stations.setUp(d.path, d.parts, d.length).ok());
  plus = stations;
  minus = stations;
  constexpr double kH = 1e-6;
  double worstPosition = 0.0, worstLength = 0.0, worstCurvature = 0.0;
  for (int p = 0; p < layout.count; ++p)
    for (int l = 0; l < 2; ++l) {
      Vector2 up[kMaxPulleys], down[kMaxPulleys];
      for (int c = 0; c < kMaxPulleys; ++c) up[c] = down[c] = layout.circle[c].centre;
      up[p](l) += kH;
      down[p](l) -= kH;
      ASSERT_EQ(plus.evaluate(up), beltsim::Status::kOk);
      ASSERT_EQ(minus.evaluate(down), beltsim::Status::kOk);
      for (int i = 0; i < NE; ++i) {
        const Vector2 difference = (plus.position(i) - minus.position(i)) / (2.0 * kH);
        const Vector2 analytic = stations.positionByCentre(i, p).col(l);
        worstPosition = std::max(worstPosition, (difference - analytic).norm());
        EXPECT_LT((difference - analytic).norm(), 1e-7) << "node " << i << ", circle " << p << ", axis " << l;
      }
      for (int j = 0; j < 2 * layout.count; ++j) {
        const double difference = (plus.partLength(j) - minus.partLength(j)) / (2.0 * kH);
        const double analytic = stations.partLengthByCentre(j, p)(l);
        worstLength = std::max(worstLength, std::fabs(difference - analytic));
        EXPECT_NEAR(difference, analytic, 1e-7) << "part " << j << ", circle " << p << ", axis " << l;
        // The second derivatives: central differences of the first ones.
        for (int r = 0; r < layout.count; ++r) {
          const Vector2 curvature = (plus.partLengthByCentre(j, r) - minus.partLengthByCentre(j, r)) / (2.0 * kH);
          const Vector2 expected = stations.partLengthByCentres(j, r, p).col(l);
          worstCurvature = std::max(worstCurvature, (curvature - expected).norm());
          EXPECT_LT((curvature - expected).norm(), 1e-6 * (1.0 + expected.norm()))
              << "part " << j << ", circles " << r << ", " << p << ", axis " << l;
        }
      }
    }
  std::printf("[figure] %d circles, %d elements: worst |d position - central difference| %.1e, of a part length %.1e, "
              "of its second derivative %.1e\n", layout.count, NE, worstPosition, worstLength, worstCurvature);
}

TEST(MovingStations, TheirDerivativesByTheCentresAreThoseOfCentralDifferences) {
  expectDerivativesOfCentralDifferences<16>(twoPulleys());
  expectDerivativesOfCentralDifferences<24>(backSideIdler());
  expectDerivativesOfCentralDifferences<48>(fourPulleys());
}

// A circle moved so far that a span can no longer be tangent to both circles is refused.
TEST(MovingStations, ACircleMovedIntoItsNeighbourIsADegenerateState) {
  const Layout layout = backSideIdler();
  const Laid<24> d = layOut<24>(layout);
  beltsim::MovingStations<24, kMaxPulleys> stations;
  ASSERT_TRUE(stations.setUp(d.path, d.parts, d.length).ok());
  Vector2 centre[kMaxPulleys];
  for (int p = 0; p < kMaxPulleys; ++p) centre[p] = layout.circle[p].centre;
  centre[2] = centre[1] + Vector2(0.05, 0.0);  // inside pulley 1's circle
  EXPECT_EQ(stations.evaluate(centre), beltsim::Status::kDegenerateState);
}

constexpr double kDrawn = 0.0523;  // m, a drawn element's length

// The paper's belt as a drawn element.
beltsim::EulerianCable2D::Parameters beltElement() {
  beltsim::EulerianCable2D::Parameters p;
  p.length = kDrawn;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = 0.0107;
  p.referenceAxialStrain = -0.05;
  return p;
}

// What lets an element of a stretched part keep the tables of its drawn length L (the plan for
// moving stations): the element of length kappa L at coordinates q is the element of length L at
// q~ = D(kappa) q, its two slopes times kappa. The Hermite shapes of the slopes carry the factor L, so
// r(xi) is the same at every xi = x / L; r' = dr/dx is kappa times larger on the short mesh, the
// material stretch lambda = (pB - pA) / L too, so the strain |r'| / lambda, the curvature and the
// measure lambda dx of the material are unchanged, and so is the material's velocity r_dot + w r'
// (w = -p_dot / lambda). Hence the elastic energy (every axial rule), gravity's potential and the
// kinetic energy agree (at kappa_dot = 0: then q~_dot = D q_dot) to rounding.
TEST(MovingStations, AnElementOfAStretchedPartIsTheDrawnElementAtScaledSlopes) {
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  const double drawn = kDrawn, R = 0.1;
  const beltsim::EulerianCable2D::Parameters p = beltElement();
  for (double kappa : {0.93, 1.013, 1.2}) {
    // An arc of radius R over the mesh length kappa L, slopes of length 1.01, disturbed.
    const double length = kappa * drawn, phi = length / R, s = 1.01;
    Vector8 q;
    q << 0.0, 0.0, s, 0.0, R * std::sin(phi), R * (1.0 - std::cos(phi)), s * std::cos(phi), s * std::sin(phi);
    q += 1e-3 * (Vector8() << 0.3, -0.2, 0.5, 0.1, -0.4, 0.2, -0.3, 0.6).finished();
    const Vector8 qDot = (Vector8() << 2.0, -0.5, 0.3, 1.1, 1.7, 0.4, -0.8, 0.2).finished();
    const Vector2 material(0.21, 0.21 + 0.96 * length), materialRate(-3.1, -2.9);
    Vector8 scale = Vector8::Ones();
    scale(2) = scale(3) = scale(6) = scale(7) = kappa;
    const Vector8 qScaled = scale.cwiseProduct(q), qDotScaled = scale.cwiseProduct(qDot);
    for (beltsim::AxialRule rule : {beltsim::AxialRule::kA, beltsim::AxialRule::kB, beltsim::AxialRule::kC}) {
      beltsim::EulerianCable2D::Parameters atDrawn = p, atLength = p;
      atDrawn.axialRule = atLength.axialRule = rule;
      atLength.length = length;
      beltsim::EulerianCable2D drawnElement, element;
      ASSERT_TRUE(drawnElement.setUp(atDrawn).ok());
      ASSERT_TRUE(element.setUp(atLength).ok());
      double u = 0.0, uDrawn = 0.0;
      ASSERT_EQ(element.elasticEnergy(q, element.stretch(material(0), material(1)), u), beltsim::Status::kOk);
      ASSERT_EQ(drawnElement.elasticEnergy(qScaled, drawnElement.stretch(material(0), material(1)), uDrawn),
                beltsim::Status::kOk);
      EXPECT_NEAR(uDrawn, u, 1e-12 * u) << "kappa " << kappa << ", rule " << static_cast<int>(rule);
    }
    // Gravity's potential -lambda f_g . q (f_g the element's consistent load, eulerian_mesh.hpp's
    // elementRows): lambda~ = kappa lambda, and f_g's slope entries carry L^2 against its L.
    beltsim::EulerianCable2D::Parameters heavy = p, heavyAtLength = p;
    heavy.gravity = heavyAtLength.gravity = Vector2(0.0, -9.81);
    heavyAtLength.length = length;
    beltsim::AncfCable2D<double> drawnMaterial, materialElement;
    ASSERT_TRUE(drawnMaterial.setUp(heavy).ok());
    ASSERT_TRUE(materialElement.setUp(heavyAtLength).ok());
    const double v = -(material(1) - material(0)) / length * materialElement.gravityForce().dot(q);
    EXPECT_NEAR(-(material(1) - material(0)) / drawn * drawnMaterial.gravityForce().dot(qScaled), v, 1e-12 * std::fabs(v))
        << "kappa " << kappa;
    beltsim::EulerianFlowInertia drawnFlow, flow;
    ASSERT_TRUE(drawnFlow.setUp(drawn, p.massPerLength).ok());
    ASSERT_TRUE(flow.setUp(length, p.massPerLength).ok());
    const double t = flow.kineticEnergy(q, qDot, material, materialRate);
    EXPECT_NEAR(drawnFlow.kineticEnergy(qScaled, qDotScaled, material, materialRate), t, 1e-12 * t) << "kappa " << kappa;
  }
}

// ---- the rows of an element on a stretching part (part_stretch.hpp) ----------------------------
using Vector8 = Eigen::Matrix<double, 8, 1>;
using Vector10 = Eigen::Matrix<double, 10, 1>;
using Vector11 = Eigen::Matrix<double, 11, 1>;  // (q 8, pA, pB, kappa)


// A state of an element on a part stretched by kappa: bent over the current length kappa L, rates
// of a belt at about 10 m/s, the material compressed to 0.95 and flowing, kappa changing.
struct StretchState {
  Vector8 q, qDot, qDDot;
  Vector2 p, pDot, pDDot;
  beltsim::PartStretch stretch;
};
StretchState stretchState(double kappa, double flow) {
  StretchState s;
  const double length = kappa * kDrawn, R = 0.1, phi = length / R, slope = 1.01;
  s.q << 0.0, 0.0, slope, 0.0, R * std::sin(phi), R * (1.0 - std::cos(phi)), slope * std::cos(phi), slope * std::sin(phi);
  s.q += 1e-3 * (Vector8() << 0.3, -0.2, 0.5, 0.1, -0.4, 0.2, -0.3, 0.6).finished();
  s.qDot << 2.0, -0.5, 0.3, 1.1, 1.7, 0.4, -0.8, 0.2;
  s.qDDot << 120.0, -80.0, 35.0, 210.0, -150.0, 60.0, -95.0, 40.0;
  s.p << 0.4, 0.4 + 0.95 * length;
  s.pDot << flow * 10.2, flow * 9.7;
  s.pDDot << 40.0, -25.0;
  s.stretch = {kappa, 3.0, -250.0};  // kappa_dot, kappa_ddot: an arm swinging a few degrees at ~10 Hz
  return s;
}

// T(Z, Z_dot) of the element on the stretching part: the drawn element's at q~ = D q,
// q~_dot = D q_dot + kappa_dot D' q.
double stretchedKinetic(const beltsim::EulerianFlowInertia& drawn, const Vector11& z, const Vector11& zDot) {
  const Vector8 q = z.head<8>();
  const Vector8 qDot = beltsim::StretchedElement::scaled(z(10), zDot.head<8>()) +
                       zDot(10) * beltsim::StretchedElement::slopes(q);
  return drawn.kineticEnergy(beltsim::StretchedElement::scaled(z(10), q), qDot, z.segment<2>(8), zDot.segment<2>(8));
}

// Lagrange's equations of T over Z = (q, pA, pB, kappa) (tests/support/lagrange_rows.hpp).
Vector11 stretchedLagrangeRows(const beltsim::EulerianFlowInertia& drawn, const StretchState& s) {
  Vector11 z, zDot, zDDot;
  z << s.q, s.p, s.stretch.kappa;
  zDot << s.qDot, s.pDot, s.stretch.rate;
  zDDot << s.qDDot, s.pDDot, s.stretch.acceleration;
  return beltsim::test::lagrangeRows<11>(
      [&](const Vector11& at, const Vector11& rates) { return stretchedKinetic(drawn, at, rates); }, z, zDot, zDDot);
}

// The inertia of an element on a stretching part, the material passing its moving stations
// included: the drawn element's rows at the transformed accelerations, carried back by
// StretchedElement::rows, are Lagrange's equations of its kinetic energy in (q, pA, pB, kappa), with
// the material flowing either way and the part growing or shrinking.
TEST(MovingStations, TheInertiaRowsOfAStretchingPartAreLagrangesEquationsInItsStretch) {
  beltsim::EulerianFlowInertia drawn;
  ASSERT_TRUE(drawn.setUp(kDrawn, 0.8288).ok());
  for (double kappa : {0.95, 1.1})
    for (double flow : {-1.0, 1.0})
      for (double sign : {-1.0, 1.0}) {
        StretchState s = stretchState(kappa, flow);
        s.stretch.rate *= sign;
        const Vector11 expected = stretchedLagrangeRows(drawn, s);
        Vector8 q, qDot, qDDot;
        beltsim::StretchedElement::coordinates(s.stretch, s.q, s.qDot, s.qDDot, q, qDot, qDDot);
        Vector10 drawnRows, rows;
        ASSERT_EQ(drawn.force(q, qDot, qDDot, s.p, s.pDot, s.pDDot, drawnRows), beltsim::Status::kOk);
        double kappaRow = 0.0;
        beltsim::StretchedElement::rows(kappa, s.q, drawnRows, rows, kappaRow);
        for (int i = 0; i < 10; ++i)
          EXPECT_NEAR(rows(i), expected(i), 1e-6 * expected.norm()) << "kappa " << kappa << ", row " << i;
        EXPECT_NEAR(kappaRow, expected(10), 1e-6 * expected.norm()) << "kappa " << kappa << ", its own row";
        Vector11 got;
        got << rows, kappaRow;
        const double off = (got - expected).norm() / expected.norm();
        // Without the kappa_dot terms of the accelerations the rows miss the passing material.
        beltsim::PartStretch frozen = s.stretch;
        frozen.rate = frozen.acceleration = 0.0;
        beltsim::StretchedElement::coordinates(frozen, s.q, s.qDot, s.qDDot, q, qDot, qDDot);
        ASSERT_EQ(drawn.force(q, qDot, qDDot, s.p, s.pDot, s.pDDot, drawnRows), beltsim::Status::kOk);
        beltsim::StretchedElement::rows(kappa, s.q, drawnRows, rows, kappaRow);
        const double passing = (rows - expected.head<10>()).norm() / expected.norm();
        EXPECT_GT(passing, 1e-3);
        std::printf("[figure] kappa %.2f, flow %+.0f, kappa_dot %+.0f /s: rows off Lagrange's by %.1e of their norm; "
                    "without the passing material by %.1e\n", kappa, flow, s.stretch.rate, off, passing);
      }
}

// The elastic rows: U(q, pA, pB, kappa) = U~(D q, (pB - pA) / L), its derivatives by central
// differences against the drawn element's force carried back.
TEST(MovingStations, TheElasticRowsOfAStretchedPartAreTheDerivativesOfItsEnergy) {
  beltsim::EulerianCable2D drawn;
  ASSERT_TRUE(drawn.setUp(beltElement()).ok());
  auto energy = [&](const Vector11& z) {
    double u = 0.0;
    EXPECT_EQ(drawn.elasticEnergy(beltsim::StretchedElement::scaled(z(10), z.head<8>()), drawn.stretch(z(8), z(9)), u),
              beltsim::Status::kOk);
    return u;
  };
  for (double kappa : {0.95, 1.1}) {
    const StretchState s = stretchState(kappa, 1.0);
    Vector11 z;
    z << s.q, s.p, kappa;
    Eigen::Matrix<double, 9, 1> force;
    ASSERT_EQ(drawn.elasticForce(beltsim::StretchedElement::scaled(kappa, s.q), drawn.stretch(s.p(0), s.p(1)), force),
              beltsim::Status::kOk);
    Vector10 drawnRows, rows;
    drawnRows << force.head<8>(), -force(8) / kDrawn, force(8) / kDrawn;  // d lambda / d pA, d pB = -+1/L
    double kappaRow = 0.0;
    beltsim::StretchedElement::rows(kappa, s.q, drawnRows, rows, kappaRow);
    Vector11 expected;
    for (int i = 0; i < 11; ++i) {
      Vector11 up = z, down = z;
      up(i) += 1e-7;
      down(i) -= 1e-7;
      expected(i) = (energy(up) - energy(down)) / 2e-7;
    }
    for (int i = 0; i < 10; ++i) EXPECT_NEAR(rows(i), expected(i), 1e-6 * expected.norm()) << "row " << i;
    EXPECT_NEAR(kappaRow, expected(10), 1e-6 * expected.norm()) << "its own row";
  }
}

// A straight element under uniform strain does not push on its part's stretch: moving both end
// slopes by the same amount along the element with the ends held changes |r'| by 1 - 6 xi + 6 xi^2
// of it, whose integral (exact in every axial rule) is 0, and the axial force is the same
// everywhere. So E_kappa = 0 to rounding, while each slope row carries the axial force.
TEST(MovingStations, AStraightUniformlyStrainedElementHasNoStretchRow) {
  for (beltsim::AxialRule rule : {beltsim::AxialRule::kA, beltsim::AxialRule::kB, beltsim::AxialRule::kC}) {
    beltsim::EulerianCable2D::Parameters p = beltElement();
    p.axialRule = rule;
    beltsim::EulerianCable2D drawn;
    ASSERT_TRUE(drawn.setUp(p).ok());
    const double kappa = 1.07, slope = 1.002, length = kappa * kDrawn;
    const Vector2 t(std::cos(0.4), std::sin(0.4));
    Vector8 q;
    q << 0.1, 0.2, slope * t, Vector2(0.1, 0.2) + slope * length * t, slope * t;
    Eigen::Matrix<double, 9, 1> force;
    ASSERT_EQ(drawn.elasticForce(beltsim::StretchedElement::scaled(kappa, q), drawn.stretch(0.0, 0.97 * length), force),
              beltsim::Status::kOk);
    Vector10 drawnRows, rows;
    drawnRows << force.head<8>(), -force(8) / kDrawn, force(8) / kDrawn;
    double kappaRow = 1.0;
    beltsim::StretchedElement::rows(kappa, q, drawnRows, rows, kappaRow);
    const double scale = force.head<8>().norm();
    EXPECT_GT(scale, 1.0);
    EXPECT_LT(std::fabs(kappaRow), 1e-12 * scale) << "rule " << static_cast<int>(rule);
  }
}

// The Newton block over (q, pA, pB, kappa) of the inertia rows on a stretching part
// (StretchedElement::matrix) against central differences of the rows by the accelerations, the
// rates and the coordinates, kappa's included: each of the three derivatives alone (c_a, c_v, c_q
// = 1, 0, 0 and so on, so that the rate terms are checked at their own scale), then combined with
// Newmark's coefficients at h = 1e-4 s (the trapezoidal rule).
TEST(MovingStations, TheNewtonBlockOfAStretchingPartIsTheDerivativeOfItsRows) {
  beltsim::EulerianFlowInertia drawn;
  ASSERT_TRUE(drawn.setUp(kDrawn, 0.8288).ok());
  const double h = 1e-4;
  const double coefficients[4][3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0},
                                     {1.0, 0.5 / (0.25 * h), 1.0 / (0.25 * h * h)}};
  for (double kappa : {0.95, 1.1}) {
    const StretchState s = stretchState(kappa, 1.0);
    Vector11 z, zDot, zDDot;
    z << s.q, s.p, kappa;
    zDot << s.qDot, s.pDot, s.stretch.rate;
    zDDot << s.qDDot, s.pDDot, s.stretch.acceleration;
    auto rowsAt = [&](const Vector11& at, const Vector11& rates, const Vector11& accelerations) {
      const beltsim::PartStretch st{at(10), rates(10), accelerations(10)};
      Vector8 q, qDot, qDDot;
      beltsim::StretchedElement::coordinates(st, at.head<8>(), rates.head<8>(), accelerations.head<8>(), q, qDot, qDDot);
      Vector10 drawnRows, rows;
      EXPECT_EQ(drawn.force(q, qDot, qDDot, at.segment<2>(8), rates.segment<2>(8), accelerations.segment<2>(8), drawnRows),
                beltsim::Status::kOk);
      double kappaRow = 0.0;
      beltsim::StretchedElement::rows(st.kappa, at.head<8>(), drawnRows, rows, kappaRow);
      Vector11 out;
      out << rows, kappaRow;
      return out;
    };
    Eigen::Matrix<double, 11, 11> byPosition, byVelocity, byAcceleration;
    for (int j = 0; j < 11; ++j) {
      const double dz = 1e-7, dv = 1e-4, da = 1e-1;
      Vector11 up = z, down = z;
      up(j) += dz;
      down(j) -= dz;
      byPosition.col(j) = (rowsAt(up, zDot, zDDot) - rowsAt(down, zDot, zDDot)) / (2 * dz);
      up = zDot, down = zDot;
      up(j) += dv;
      down(j) -= dv;
      byVelocity.col(j) = (rowsAt(z, up, zDDot) - rowsAt(z, down, zDDot)) / (2 * dv);
      up = zDDot, down = zDDot;
      up(j) += da;
      down(j) -= da;
      byAcceleration.col(j) = (rowsAt(z, zDot, up) - rowsAt(z, zDot, down)) / (2 * da);
    }
    Vector8 q, qDot, qDDot;
    beltsim::StretchedElement::coordinates(s.stretch, s.q, s.qDot, s.qDDot, q, qDot, qDDot);
    beltsim::EulerianFlowTerms terms;
    ASSERT_EQ(drawn.evaluate(q, qDot, qDDot, s.p, s.pDot, s.pDDot, terms), beltsim::Status::kOk);
    for (const auto& c : coefficients) {
      const Eigen::Matrix<double, 11, 11> expected = c[0] * byAcceleration + c[1] * byVelocity + c[2] * byPosition;
      Eigen::Matrix<double, 11, 11> block;
      beltsim::StretchedElement::matrix(s.stretch, z.head<10>(), zDot.head<10>(), zDDot.head<10>(), terms.force,
                                        terms.byAcceleration, terms.byVelocity, terms.byPosition, c[0], c[1], c[2],
                                        block);
      const double off = (block - expected).cwiseAbs().maxCoeff() / expected.cwiseAbs().maxCoeff();
      const double offKappa = std::max((block.col(10) - expected.col(10)).norm() / expected.col(10).norm(),
                                       (block.row(10) - expected.row(10)).norm() / expected.row(10).norm());
      std::printf("[figure] kappa %.2f, c = (%g, %g, %g): block off central differences by %.1e of its largest "
                  "entry, kappa's column and row by %.1e of their norms\n", kappa, c[0], c[1], c[2], off, offKappa);
      EXPECT_LT(off, 1e-6);
      EXPECT_LT(offKappa, 1e-6);
    }
  }
}

// The drive's block (StretchedElement::matrixAtRest, from the combined block m = c_a A + c_v V + c_q K)
// is the checked block above (StretchedElement::matrix) with the stretch at rest and no slope
// rates or accelerations: equal within 1e-12 of its largest entry, at two stretches and Newmark's
// coefficients at h = 1e-4 s.
TEST(MovingStations, TheDrivesBlockIsTheNewtonBlockWithTheStretchAtRest) {
  beltsim::EulerianFlowInertia drawn;
  ASSERT_TRUE(drawn.setUp(kDrawn, 0.8288).ok());
  const double h = 1e-4, ca = 1.0 / (0.25 * h * h), cv = 0.5 / (0.25 * h), cq = 1.0;
  for (double kappa : {0.95, 1.1}) {
    StretchState s = stretchState(kappa, 1.0);
    s.stretch.rate = s.stretch.acceleration = 0.0;
    s.qDot.setZero();
    s.qDDot.setZero();
    Vector8 q, qDot, qDDot;
    beltsim::StretchedElement::coordinates(s.stretch, s.q, s.qDot, s.qDDot, q, qDot, qDDot);
    beltsim::EulerianFlowTerms terms;
    ASSERT_EQ(drawn.evaluate(q, qDot, qDDot, s.p, s.pDot, s.pDDot, terms), beltsim::Status::kOk);
    Vector10 z = Vector10::Zero(), zero = Vector10::Zero();
    z << s.q, s.p;
    Eigen::Matrix<double, 11, 11> full, atRest;
    beltsim::StretchedElement::matrix(s.stretch, z, zero, zero, terms.force, terms.byAcceleration, terms.byVelocity,
                                      terms.byPosition, ca, cv, cq, full);
    const beltsim::StretchedElement::Matrix10 m = ca * terms.byAcceleration + cv * terms.byVelocity + cq * terms.byPosition;
    beltsim::StretchedElement::matrixAtRest(kappa, z, terms.force, m, cq, atRest);
    const double off = (atRest - full).cwiseAbs().maxCoeff() / full.cwiseAbs().maxCoeff();
    std::printf("[figure] kappa %.2f: the drive's block off the Newton block at rest by %.1e of its largest entry\n",
                kappa, off);
    EXPECT_LT(off, 1e-12);
  }
}

}  // namespace
