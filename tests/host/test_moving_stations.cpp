// Stations that move with the layout (model/include/beltsim/system/moving_stations.hpp): each part
// of the path keeps its elements and each element its share of its part, wherever the circles
// move. References: at the drawn centres, the stations eulerianStations chose and the positions
// placeAtStations gives them; at moved centres, the path buildBeltPath draws around them, divided
// in the drawn shares; the closed-form derivatives against central differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "beltsim/element/eulerian_cable2d.hpp"
#include "beltsim/element/eulerian_flow_inertia.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "beltsim/system/moving_stations.hpp"

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
      Vector2 p, t;
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

// The closed-form derivatives of every node's position and every part's length by every centre
// against central differences (step 1e-6 m; their truncation error is of order 1e-12 / curvature).
template <int NE>
void expectDerivativesOfCentralDifferences(const Layout& layout) {
  const Laid<NE> d = layOut<NE>(layout);
  beltsim::MovingStations<NE, kMaxPulleys> stations, plus, minus;
  ASSERT_TRUE(stations.setUp(d.path, d.parts, d.length).ok());
  plus = stations;
  minus = stations;
  constexpr double kH = 1e-6;
  double worstPosition = 0.0, worstLength = 0.0;
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
      }
    }
  std::printf("[figure] %d circles, %d elements: worst |d position - central difference| %.1e, of a part length %.1e\n",
              layout.count, NE, worstPosition, worstLength);
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

// What lets an element of a stretched part keep the tables of its drawn length L (the plan for
// moving stations): the element of length kappa L at coordinates q is the element of length L at
// q~ = D(kappa) q, its two slopes times kappa. The Hermite shapes of the slopes carry the factor L, so
// r(xi) is the same at every xi = x / L; r' = dr/dx is kappa times larger on the short mesh, the
// material stretch lambda = (pB - pA) / L too, so the strain |r'| / lambda, the curvature and the
// measure lambda dx of the material are unchanged, and so is the material's velocity r_dot + w r'
// (w = -p_dot / lambda). Hence the elastic energy (every axial rule) and the kinetic energy agree
// (at kappa_dot = 0: then q~_dot = D q_dot) to rounding.
TEST(MovingStations, AnElementOfAStretchedPartIsTheDrawnElementAtScaledSlopes) {
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  const double drawn = 0.0523, R = 0.1;
  beltsim::EulerianCable2D::Parameters p;
  p.length = drawn;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = 0.0107;
  p.referenceAxialStrain = -0.05;
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
    beltsim::EulerianFlowInertia drawnFlow, flow;
    ASSERT_TRUE(drawnFlow.setUp(drawn, p.massPerLength).ok());
    ASSERT_TRUE(flow.setUp(length, p.massPerLength).ok());
    const double t = flow.kineticEnergy(q, qDot, material, materialRate);
    EXPECT_NEAR(drawnFlow.kineticEnergy(qScaled, qDotScaled, material, materialRate), t, 1e-12 * t) << "kappa " << kappa;
  }
}

}  // namespace
