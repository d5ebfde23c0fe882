// The elements of the eulerian belt (docs/model_element.md §2.11): an ANCF element of
// fixed mesh length holding a variable amount of material (element/eulerian_cable2d.hpp) and the
// inertia of the material flowing through it (element/eulerian_flow_inertia.hpp). Checked against the
// material element at unit stretch, central differences of their own energies, Lagrange's
// equations, the analytic axial force of a straight element, and the one-transport-coordinate
// inertia of docs/model_element.md §2.10 on a closed ring.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "beltsim/element/ancf_cable2d.hpp"
#include "flow_through_inertia.hpp"
#include "beltsim/element/eulerian_cable2d.hpp"
#include "beltsim/element/eulerian_flow_inertia.hpp"
#include "beltsim/system/eulerian_stations.hpp"
#include "gyroscopic_modes.hpp"
#include "lagrange_rows.hpp"

namespace {

using beltsim::AncfCable2D;
using beltsim::AxialRule;
using beltsim::EulerianCable2D;
using beltsim::Status;
using Vector8 = EulerianCable2D::Vector8;
using Vector9 = EulerianCable2D::Vector9;
using Matrix9 = EulerianCable2D::Matrix9;

// The paper's belt (docs/model_start_and_benchmark.md §9.1): EA = 8000 N, eps0 = -0.05, EI = 0.0107 N m^2 (§9.2),
// element length of 24 elements on the paper's drive.
EulerianCable2D::Parameters beltParameters(AxialRule rule) {
  EulerianCable2D::Parameters p;
  p.length = 0.0523;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = 0.0107;
  p.referenceAxialStrain = -0.05;
  p.axialRule = rule;
  return p;
}

// A bent, stretched element: an arc of radius 0.1 m with slopes of length 1.01, disturbed.
Vector8 bentElement(std::mt19937& rng) {
  const double L = 0.0523, R = 0.1, s = 1.01, phi = L / R;
  Vector8 q;
  q << R, 0.0, 0.0, s, R * std::cos(phi), R * std::sin(phi), -s * std::sin(phi), s * std::cos(phi);
  std::uniform_real_distribution<double> u(-1e-3, 1e-3);
  for (int i = 0; i < 8; ++i) q(i) += u(rng);
  return q;
}

constexpr AxialRule kRules[] = {AxialRule::kA, AxialRule::kB, AxialRule::kC};

}  // namespace

// At lambda = 1 the element holds exactly its mesh length of material: its force is the material
// element's elastic force (docs/model_element.md §2.5) and its energy the material element's energy.
TEST(EulerianCable, AtUnitStretchIsTheMaterialElement) {
  std::mt19937 rng(11);
  for (AxialRule rule : kRules) {
    const EulerianCable2D::Parameters p = beltParameters(rule);
    EulerianCable2D cable;
    AncfCable2D<double> material;
    ASSERT_TRUE(cable.setUp(p).ok());
    ASSERT_TRUE(material.setUp(p).ok());
    const Vector8 q = bentElement(rng);
    Vector9 f;
    Vector8 reference;
    ASSERT_EQ(cable.elasticForce(q, 1.0, f), Status::kOk);
    ASSERT_EQ(material.internalForce(q, Vector8::Zero(), reference), Status::kOk);
    EXPECT_LT((f.head<8>() - reference).norm(), 1e-12 * reference.norm());
    double u = 0.0, uReference = 0.0;
    ASSERT_EQ(cable.elasticEnergy(q, 1.0, u), Status::kOk);
    ASSERT_EQ(material.elasticEnergy(q, uReference), Status::kOk);
    EXPECT_NEAR(u, uReference, 1e-13 * uReference);
  }
}

// The force is the gradient of the energy in (q, lambda), and the stiffness the derivative of the
// force: central differences, step 1e-7 of each coordinate's scale.
TEST(EulerianCable, ForceAndStiffnessAreDerivativesOfTheEnergy) {
  std::mt19937 rng(12);
  for (AxialRule rule : kRules) {
    EulerianCable2D e;
    ASSERT_TRUE(e.setUp(beltParameters(rule)).ok());
    const Vector8 q = bentElement(rng);
    const double lambda = 0.97;
    Vector9 f;
    Matrix9 k;
    ASSERT_EQ(e.elasticForceAndStiffness(q, lambda, f, k), Status::kOk);
    EXPECT_LT((k - k.transpose()).norm(), 1e-12 * k.norm());
    Vector9 x;
    x << q, lambda;
    for (int j = 0; j < 9; ++j) {
      const double h = 1e-7;
      Vector9 xp = x, xm = x;
      xp(j) += h;
      xm(j) -= h;
      double up = 0.0, um = 0.0;
      Vector9 fp, fm;
      ASSERT_EQ(e.elasticEnergy(xp.head<8>(), xp(8), up), Status::kOk);
      ASSERT_EQ(e.elasticEnergy(xm.head<8>(), xm(8), um), Status::kOk);
      ASSERT_EQ(e.elasticForce(xp.head<8>(), xp(8), fp), Status::kOk);
      ASSERT_EQ(e.elasticForce(xm.head<8>(), xm(8), fm), Status::kOk);
      EXPECT_NEAR((up - um) / (2 * h), f(j), 1e-6 * f.norm()) << "force " << j;
      const Vector9 column = (fp - fm) / (2 * h);
      EXPECT_LT((column - k.col(j)).norm(), 1e-6 * k.norm()) << "stiffness column " << j;
    }
  }
}

// On the nodal material coordinates (pA, pB) the force and stiffness follow from lambda =
// (pB - pA)/L: central differences in pA and pB of the energy and of the force.
TEST(EulerianCable, NodalMaterialCoordinatesEnterThroughTheStretch) {
  std::mt19937 rng(13);
  EulerianCable2D e;
  ASSERT_TRUE(e.setUp(beltParameters(AxialRule::kC)).ok());
  const Vector8 q = bentElement(rng);
  const double pA = 1.3, pB = pA + 0.97 * e.length();
  EulerianCable2D::Vector10 f;
  EulerianCable2D::Matrix10 k;
  ASSERT_EQ(e.elasticForceAndStiffness(q, pA, pB, f, &k), Status::kOk);
  const double h = 1e-9;
  for (int a = 0; a < 2; ++a) {
    const double dA = a == 0 ? h : 0.0, dB = a == 1 ? h : 0.0;
    double up = 0.0, um = 0.0;
    ASSERT_EQ(e.elasticEnergy(q, e.stretch(pA + dA, pB + dB), up), Status::kOk);
    ASSERT_EQ(e.elasticEnergy(q, e.stretch(pA - dA, pB - dB), um), Status::kOk);
    EXPECT_NEAR((up - um) / (2 * h), f(8 + a), 1e-6 * std::fabs(f(8 + a)));
    EulerianCable2D::Vector10 fp, fm;
    EulerianCable2D::Matrix10 unused;
    ASSERT_EQ(e.elasticForceAndStiffness(q, pA + dA, pB + dB, fp, &unused), Status::kOk);
    ASSERT_EQ(e.elasticForceAndStiffness(q, pA - dA, pB - dB, fm, &unused), Status::kOk);
    EXPECT_LT(((fp - fm) / (2 * h) - k.col(8 + a)).norm(), 1e-5 * k.col(8 + a).norm());
  }
  // The material force pushes the same amount out of both ends: f(pA) = -f(pB).
  EXPECT_EQ(f(8), -f(9));
}

// A straight element of mesh length L along x with |r'| = s holding lambda L of material: the
// material's strain is s/lambda - 1, the axial force N = EA (s/lambda - 1 - eps0) reaches node B
// as (N, 0), and dU/dlambda = L (EA e^2/2 - N s/lambda) (no curvature). Numbers: s = 1.002,
// lambda = 0.96: e = 0.09375, N = 750 N.
TEST(EulerianCable, StraightElementCarriesTheStrainOfItsMaterial) {
  for (AxialRule rule : kRules) {
    const EulerianCable2D::Parameters p = beltParameters(rule);
    EulerianCable2D e;
    ASSERT_TRUE(e.setUp(p).ok());
    const double L = p.length, s = 1.002, lambda = 0.96;
    Vector8 q;
    q << 0.0, 0.0, s, 0.0, s * L, 0.0, s, 0.0;
    Vector9 f;
    ASSERT_EQ(e.elasticForce(q, lambda, f), Status::kOk);
    const double strain = s / lambda - 1.0 - p.referenceAxialStrain;
    const double N = p.EA * strain;
    EXPECT_NEAR(N, 750.0, 1e-9);
    EXPECT_NEAR(f(4), N, 1e-9 * N);   // node B, x
    EXPECT_NEAR(f(0), -N, 1e-9 * N);  // node A, x
    EXPECT_NEAR(f(1), 0.0, 1e-9);
    EXPECT_NEAR(f(5), 0.0, 1e-9);
    EXPECT_NEAR(f(8), L * (0.5 * p.EA * strain * strain - N * s / lambda), 1e-9 * L * N);
  }
}

// Two collinear elements of mesh lengths L1 = L and L2 = 2L between fixed nodes, holding the
// material P = 3 L / 1.02 with the middle node's material coordinate free: minimising the energy
// over it (Newton on dU/dp1 with the stiffness) puts the material where both axial forces are
// equal, p1 = P/3, N = EA (1.02 - 1 - eps0) = 560 N; started from p1 = P/2.
TEST(EulerianCable, MaterialSettlesWhereTheAxialForcesAreEqual) {
  EulerianCable2D::Parameters p = beltParameters(AxialRule::kC);
  const double L = p.length;
  EulerianCable2D first, second;
  ASSERT_TRUE(first.setUp(p).ok());
  p.length = 2.0 * L;
  ASSERT_TRUE(second.setUp(p).ok());
  Vector8 q1, q2;
  q1 << 0.0, 0.0, 1.0, 0.0, L, 0.0, 1.0, 0.0;
  q2 << L, 0.0, 1.0, 0.0, 3.0 * L, 0.0, 1.0, 0.0;
  const double P = 3.0 * L / 1.02;
  double p1 = 0.5 * P;
  for (int iteration = 0; iteration < 20; ++iteration) {
    EulerianCable2D::Vector10 f1, f2;
    EulerianCable2D::Matrix10 k1, k2;
    ASSERT_EQ(first.elasticForceAndStiffness(q1, 0.0, p1, f1, &k1), Status::kOk);
    ASSERT_EQ(second.elasticForceAndStiffness(q2, p1, P, f2, &k2), Status::kOk);
    const double r = f1(9) + f2(8);
    p1 -= r / (k1(9, 9) + k2(8, 8));
  }
  EXPECT_NEAR(p1, P / 3.0, 1e-12);
  Vector9 f1, f2;
  ASSERT_EQ(first.elasticForce(q1, first.stretch(0.0, p1), f1), Status::kOk);
  ASSERT_EQ(second.elasticForce(q2, second.stretch(p1, P), f2), Status::kOk);
  EXPECT_NEAR(f1(4), 560.0, 1e-7);
  EXPECT_NEAR(-f2(0), 560.0, 1e-7);
}

// A material stretch that is not positive has no material in the element: refused, and nothing is
// returned but zeros. A reference curvature would stay with the mesh: refused at set-up.
TEST(EulerianCable, RefusesAnElementWithoutMaterialAndAReferenceCurvature) {
  EulerianCable2D e;
  EulerianCable2D::Parameters p = beltParameters(AxialRule::kC);
  ASSERT_TRUE(e.setUp(p).ok());
  std::mt19937 rng(14);
  Vector9 f;
  EXPECT_EQ(e.elasticForce(bentElement(rng), 0.0, f), Status::kDegenerateState);
  EXPECT_EQ(f.norm(), 0.0);
  EXPECT_EQ(e.elasticForce(bentElement(rng), std::nan(""), f), Status::kNonFiniteValue);
  p.referenceCurvature = 1.0;
  EXPECT_FALSE(e.setUp(p).ok());
}

namespace {

using beltsim::EulerianFlowInertia;
using beltsim::EulerianFlowTerms;
using Vector2 = EulerianFlowInertia::Vector2;
using Vector10 = EulerianFlowTerms::Vector10;
using Matrix10 = EulerianFlowTerms::Matrix10;

// A state of one element of the paper's belt, L = 0.0523 m: the bent element, rates of the order
// of a belt at 10 m/s, the material compressed to lambda = 0.95 and flowing at about 10 m/s with
// a stretch rate.
struct FlowState {
  Vector8 q, qDot, qDDot;
  Vector2 p, pDot, pDDot;
};
FlowState flowState(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  FlowState s;
  s.q = bentElement(rng);
  for (int i = 0; i < 8; ++i) {
    s.qDot(i) = 3.0 * u(rng);
    s.qDDot(i) = 300.0 * u(rng);
  }
  s.p << 0.4, 0.4 + 0.95 * 0.0523;
  s.pDot << -10.0 + u(rng), -10.0 + u(rng);
  s.pDDot << 50.0 * u(rng), 50.0 * u(rng);
  return s;
}

EulerianFlowInertia paperFlow() {
  EulerianFlowInertia f;
  EXPECT_TRUE(f.setUp(0.0523, 0.8288).ok());
  return f;
}

// z = (q, pA, pB) and its rates as 10-vectors.
Vector10 joined(const Vector8& q, const Vector2& p) {
  Vector10 z;
  z << q, p;
  return z;
}
double kinetic(const EulerianFlowInertia& f, const Vector10& z, const Vector10& zDot) {
  return f.kineticEnergy(z.head<8>(), zDot.head<8>(), z.tail<2>(), zDot.tail<2>());
}

// Lagrange's equations of T at a state (tests/support/lagrange_rows.hpp).
Vector10 lagrangeRows(const EulerianFlowInertia& f, const FlowState& s) {
  return beltsim::test::lagrangeRows<10>([&](const Vector10& z, const Vector10& zDot) { return kinetic(f, z, zDot); },
                                         joined(s.q, s.p), joined(s.qDot, s.pDot), joined(s.qDDot, s.pDDot));
}

}  // namespace

// T = 1/2 int rhoA lambda |r_dot + w r'|^2 dx with w = -(pA_dot N_A + pB_dot N_B)/lambda, by an
// independent 5-point Gauss-Legendre rule on the interpolated fields.
TEST(EulerianFlowInertia, KineticEnergyIsTheMaterialVelocitySquaredIntegrated) {
  std::mt19937 rng(21);
  const EulerianFlowInertia f = paperFlow();
  const FlowState s = flowState(rng);
  const double L = 0.0523, lambda = (s.p(1) - s.p(0)) / L;
  const double x5[5] = {-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
  const double w5[5] = {0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665,
                        0.2369268850561891};
  double expected = 0.0;
  for (int i = 0; i < 5; ++i) {
    const double x = 0.5 * L * (1.0 + x5[i]);
    const beltsim::HermiteShape<double> h = beltsim::HermiteShape<double>::at(x, L);
    const Eigen::Vector2d rDot = beltsim::HermiteShape<double>::interpolate(h.s, s.qDot);
    const Eigen::Vector2d r1 = beltsim::HermiteShape<double>::interpolate(h.ds, s.q);
    const double w = -(s.pDot(0) * (1.0 - x / L) + s.pDot(1) * x / L) / lambda;
    expected += 0.5 * L * w5[i] * 0.5 * 0.8288 * lambda * (rDot + w * r1).squaredNorm();
  }
  EXPECT_NEAR(f.kineticEnergy(s.q, s.qDot, s.p, s.pDot), expected, 1e-13 * expected);
}

// The inertia rows are Lagrange's equations of the kinetic energy (lagrangeRows above).
TEST(EulerianFlowInertia, RowsAreLagrangesEquationsOfTheKineticEnergy) {
  std::mt19937 rng(22);
  const EulerianFlowInertia f = paperFlow();
  const FlowState s = flowState(rng);
  const Vector10 expected = lagrangeRows(f, s);
  EulerianFlowTerms t;
  ASSERT_EQ(f.evaluate(s.q, s.qDot, s.qDDot, s.p, s.pDot, s.pDDot, t), Status::kOk);
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(t.force(i), expected(i), 1e-6 * expected.norm()) << "row " << i;
}

// The residual's rows (force(), which evaluate also gives) are Lagrange's equations with the
// material flowing either way (lagrangeRows above), and force() refuses a folded element
// (lambda <= 0) and an element never set up.
TEST(EulerianFlowInertia, ResidualRowsAreLagrangesEquationsInBothFlowDirections) {
  std::mt19937 rng(24);
  const EulerianFlowInertia f = paperFlow();
  for (int trial = 0; trial < 4; ++trial) {
    FlowState s = flowState(rng);
    if (trial % 2 == 1) s.pDot = -s.pDot;  // the material flowing the other way
    const Vector10 expected = lagrangeRows(f, s);
    Vector10 rows;
    ASSERT_EQ(f.force(s.q, s.qDot, s.qDDot, s.p, s.pDot, s.pDDot, rows), Status::kOk);
    for (int i = 0; i < 10; ++i)
      EXPECT_NEAR(rows(i), expected(i), 1e-6 * expected.norm()) << "trial " << trial << ", row " << i;
  }
  const FlowState s = flowState(rng);
  Vector10 rows;
  EXPECT_EQ(f.force(s.q, s.qDot, s.qDDot, Vector2(s.p(1), s.p(0)), s.pDot, s.pDDot, rows), Status::kDegenerateState);
  EXPECT_EQ(EulerianFlowInertia().force(s.q, s.qDot, s.qDDot, s.p, s.pDot, s.pDDot, rows), Status::kInvalidParameter);
}

// The derivatives by accelerations, positions and rates against central differences of the rows.
TEST(EulerianFlowInertia, DerivativesMatchCentralDifferences) {
  std::mt19937 rng(23);
  const EulerianFlowInertia f = paperFlow();
  const FlowState s = flowState(rng);
  EulerianFlowTerms t;
  ASSERT_EQ(f.evaluate(s.q, s.qDot, s.qDDot, s.p, s.pDot, s.pDDot, t), Status::kOk);
  EXPECT_LT((t.byAcceleration - t.byAcceleration.transpose()).norm(), 1e-14 * t.byAcceleration.norm());
  const Matrix10* analytic[3] = {&t.byPosition, &t.byVelocity, &t.byAcceleration};
  const double step[3] = {1e-7, 1e-5, 1e-3};
  for (int group = 0; group < 3; ++group) {
    Matrix10 numeric;
    for (int j = 0; j < 10; ++j) {
      FlowState up = s, down = s;
      Vector8* q[3][2] = {{&up.q, &down.q}, {&up.qDot, &down.qDot}, {&up.qDDot, &down.qDDot}};
      Vector2* p[3][2] = {{&up.p, &down.p}, {&up.pDot, &down.pDot}, {&up.pDDot, &down.pDDot}};
      if (j < 8) {
        (*q[group][0])(j) += step[group];
        (*q[group][1])(j) -= step[group];
      } else {
        (*p[group][0])(j - 8) += step[group];
        (*p[group][1])(j - 8) -= step[group];
      }
      EulerianFlowTerms tu, td;
      ASSERT_EQ(f.evaluate(up.q, up.qDot, up.qDDot, up.p, up.pDot, up.pDDot, tu), Status::kOk);
      ASSERT_EQ(f.evaluate(down.q, down.qDot, down.qDDot, down.p, down.pDot, down.pDDot, td), Status::kOk);
      numeric.col(j) = (tu.force - td.force) / (2 * step[group]);
    }
    EXPECT_LT((numeric - *analytic[group]).norm(), 1e-6 * analytic[group]->norm()) << "group " << group;
  }
}

// On a closed ring of 6 elements with every element holding its mesh length of material
// (lambda = 1) and the material flowing uniformly (pi_dot = -v, pi_ddot = -v_dot), the assembled
// element rows equal the one-transport-coordinate inertia of docs/model_element.md §2.10 (whose end terms
// cancel on assembly) and the material-coordinate rows add up to minus its transport row (sigma =
// -p up to a constant).
TEST(EulerianFlowInertia, UniformFlowOnARingIsTheOneTransportCoordinateInertia) {
  constexpr int n = 6;
  const double R = 0.05, L = 2.0 * 3.14159265358979323846 * R / n;
  EulerianFlowInertia cable;
  beltsim::FlowThroughInertia single;
  ASSERT_TRUE(cable.setUp(L, 0.8288).ok());
  ASSERT_TRUE(single.setUp(L, 0.8288).ok());
  std::mt19937 rng(24);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::Matrix<double, 4 * n, 1> q, qDot, qDDot;
  for (int k = 0; k < n; ++k) {
    const double theta = 2.0 * 3.14159265358979323846 * k / n;
    q.segment<4>(4 * k) << R * std::cos(theta), R * std::sin(theta), -1.01 * std::sin(theta), 1.01 * std::cos(theta);
  }
  for (int i = 0; i < 4 * n; ++i) {
    q(i) += 1e-3 * u(rng);
    qDot(i) = u(rng);
    qDDot(i) = 100.0 * u(rng);
  }
  const double v = 9.0, vDot = 40.0;
  Eigen::Matrix<double, 4 * n, 1> rowsMixed = Eigen::Matrix<double, 4 * n, 1>::Zero(), rowsSingle = rowsMixed;
  double materialRows = 0.0, transportRow = 0.0;
  for (int e = 0; e < n; ++e) {
    const int b = (e + 1) % n;
    Vector8 qe, ve, ae;
    qe << q.segment<4>(4 * e), q.segment<4>(4 * b);
    ve << qDot.segment<4>(4 * e), qDot.segment<4>(4 * b);
    ae << qDDot.segment<4>(4 * e), qDDot.segment<4>(4 * b);
    EulerianFlowTerms tm;
    beltsim::FlowThroughTerms ts;
    ASSERT_EQ(cable.evaluate(qe, ve, ae, Vector2(e * L, (e + 1) * L), Vector2(-v, -v), Vector2(-vDot, -vDot), tm),
              Status::kOk);
    ASSERT_EQ(single.evaluate(qe, ve, ae, v, vDot, ts), Status::kOk);
    rowsMixed.segment<4>(4 * e) += tm.force.head<4>();
    rowsMixed.segment<4>(4 * b) += tm.force.segment<4>(4);
    rowsSingle.segment<4>(4 * e) += ts.force.head<4>();
    rowsSingle.segment<4>(4 * b) += ts.force.segment<4>(4);
    materialRows += tm.force(8) + tm.force(9);
    transportRow += ts.force(8);
  }
  EXPECT_LT((rowsMixed - rowsSingle).norm(), 1e-10 * rowsSingle.norm());
  EXPECT_NEAR(materialRows, -transportRow, 1e-10 * std::fabs(transportRow));
}

namespace {

constexpr double kPi = 3.14159265358979323846;

// The paper's drive: two circles of centre-line radius 0.1 m, 0.1 pi m apart (docs/model_start_and_benchmark.md §9.1):
// spans and wraps all of 0.1 pi m.
beltsim::BeltPath<3> paperPath() {
  const beltsim::PathCircle circles[2] = {{beltsim::Vector2(0.0, 0.0), 0.1, 1},
                                          {beltsim::Vector2(0.1 * kPi, 0.0), 0.1, 1}};
  beltsim::BeltPath<3> path;
  EXPECT_TRUE(beltsim::buildBeltPath(circles, 2, path).ok());
  return path;
}

// Three circles of different radii, the third a back-side idler wrapped counter-clockwise.
beltsim::BeltPath<3> threeCirclePath() {
  const beltsim::PathCircle circles[3] = {{beltsim::Vector2(0.0, 0.0), 0.08, 1},
                                          {beltsim::Vector2(0.4, 0.05), 0.05, 1},
                                          {beltsim::Vector2(0.2, -0.12), 0.03, -1}};
  beltsim::BeltPath<3> path;
  EXPECT_TRUE(beltsim::buildBeltPath(circles, 3, path).ok());
  return path;
}

double partLength(const beltsim::BeltPath<3>& path, int part) {
  const int k = part / 2, circle = (k + 1) % path.pulleyCount;
  return part % 2 == 0 ? path.spanLength[k] : path.circle[circle].radius * std::abs(path.arcSweep[circle]);
}

}  // namespace

// Every point where the belt meets or leaves a pulley is a node (eulerian_stations.hpp), so no
// element straddles one: the stations hit the ends of every span and wrap within 1e-12 m, the
// counts add up to NE and the lengths to the path's length; on two and three circles (one of them
// wrapped from the back) and several element counts.
TEST(EulerianStations, PutANodeAtEveryPointWhereTheBeltMeetsOrLeavesAPulley) {
  for (const beltsim::BeltPath<3>& path : {paperPath(), threeCirclePath()}) {
    double station[24], length[24];
    int parts[6];
    ASSERT_TRUE(beltsim::eulerianStations(path, beltsim::MeshGrading{}, station, length, parts).ok());
    double end = 0.0, total = 0.0;
    int first = 0;
    for (int j = 0; j < 2 * path.pulleyCount; ++j) {
      EXPECT_GE(parts[j], j % 2 == 0 ? 1 : 2);
      EXPECT_NEAR(station[first], end, 1e-12) << "part " << j;
      first += parts[j];
      end += partLength(path, j);
    }
    EXPECT_EQ(first, 24);
    for (double l : length) total += l;
    EXPECT_NEAR(total, path.totalLength, 1e-12);
  }
}

// The wraps get three times the spans' elements per metre (MeshGrading's default), each wrap finer
// toward both ends by the weights 1, 1.5, 2, ...: on the paper's drive of four equal parts, 16
// elements are 2 per span and 6 per wrap, the wrap's lengths 1, 1.5, 2, 2, 1.5, 1 times 0.1 pi/9 m.
TEST(EulerianStations, GradeTheWrapsFinerTowardTheirEnds) {
  double station[16], length[16];
  int parts[6];
  ASSERT_TRUE(beltsim::eulerianStations(paperPath(), beltsim::MeshGrading{}, station, length, parts).ok());
  EXPECT_EQ(parts[0], 2);
  EXPECT_EQ(parts[1], 6);
  EXPECT_EQ(parts[2], 2);
  EXPECT_EQ(parts[3], 6);
  const double quarter = 0.1 * kPi;
  const double weights[6] = {1.0, 1.5, 2.0, 2.0, 1.5, 1.0};
  for (int k = 0; k < 2; ++k) EXPECT_NEAR(length[k], quarter / 2, 1e-15);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(length[2 + k], quarter * weights[k] / 9.0, 1e-15);
}

// Fewer elements than one per span and two per wrap: refused, naming the key (belt.elements).
TEST(EulerianStations, RefuseTooFewElementsNamingTheKey) {
  double station[8], length[8];
  int parts[6];
  const beltsim::ParameterError e =
      beltsim::eulerianStations(threeCirclePath(), beltsim::MeshGrading{}, station, length, parts);
  EXPECT_EQ(e.status, Status::kInvalidParameter);
  EXPECT_STREQ(e.parameter, "belt.elements");
}

namespace {

// Lowest transverse frequencies [rad/s] of a straight span of spatial length spanLength on n eulerian
// elements, stretched to 1 + eps, its material passing at spatial speed V: every node held along
// the span (x: the mesh stands still), the end nodes' y held (pinned, slopes free) and their
// material coordinates held (the material enters and leaves at the prescribed speed). From the
// linearised gyroscopic eigenproblem M x'' + G x' + K x = 0 about the steady flow p_a' = -lambda V,
// with M, G and K the derivatives of the element rows by acceleration, velocity and position
// (eulerian_flow_inertia.hpp, eulerian_cable2d.hpp). Also the first mode's phase turn from L/4 to 3L/4.
using EulerianSpanModes = beltsim::test::TransverseModes;

EulerianSpanModes eulerianSpanModes(int n, double spanLength, double eps, double V, double EI) {
  const double L = spanLength / n, lambda = 1.0 / (1.0 + eps);
  EulerianCable2D::Parameters parameters = beltParameters(AxialRule::kC);
  parameters.length = L;
  parameters.EI = EI;
  EulerianCable2D element;
  beltsim::EulerianFlowInertia flow;
  EulerianSpanModes out;
  if (!element.setUp(parameters).ok() || !flow.setUp(L, parameters.massPerLength).ok()) return out;
  const int dof = 5 * (n + 1);  // per node: x, y, x', y', p
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(dof, dof), G = M, K = M;
  for (int e = 0; e < n; ++e) {
    Vector8 q;
    q << e * L, 0.0, 1.0, 0.0, (e + 1) * L, 0.0, 1.0, 0.0;
    const beltsim::EulerianFlowInertia::Vector2 pe(lambda * e * L, lambda * (e + 1) * L), pDot(-lambda * V, -lambda * V);
    beltsim::EulerianFlowTerms t;
    if (flow.evaluate(q, Vector8::Zero(), Vector8::Zero(), pe, pDot, beltsim::EulerianFlowInertia::Vector2::Zero(), t) !=
        Status::kOk)
      return out;
    EulerianCable2D::Vector10 force;
    EulerianCable2D::Matrix10 stiffness;
    if (element.elasticForceAndStiffness(q, pe(0), pe(1), force, &stiffness) != Status::kOk) return out;
    int index[10];
    for (int i = 0; i < 4; ++i) {
      index[i] = 5 * e + i;
      index[4 + i] = 5 * (e + 1) + i;
    }
    index[8] = 5 * e + 4;
    index[9] = 5 * (e + 1) + 4;
    for (int i = 0; i < 10; ++i)
      for (int j = 0; j < 10; ++j) {
        M(index[i], index[j]) += t.byAcceleration(i, j);
        G(index[i], index[j]) += t.byVelocity(i, j);
        K(index[i], index[j]) += t.byPosition(i, j) + stiffness(i, j);
      }
  }
  std::vector<int> free;
  for (int i = 0; i < dof; ++i) {
    const int node = i / 5, local = i % 5;
    const bool end = node == 0 || node == n;
    if (local == 0 || (end && (local == 1 || local == 4))) continue;
    free.push_back(i);
  }
  return beltsim::test::transverseModes(M, G, K, free, [](int i) { return i % 5 == 1 || i % 5 == 3; }, 5 * (n / 4) + 1,
                                        5 * (3 * n / 4) + 1);
}

}  // namespace

// Travelling span on the eulerian mesh (Wickert and Mote, J. Appl. Mech. 57 (1990) 738): a string of
// spatial length L, tension T, c^2 = T (1 + eps) / rho A_0, its material moving at spatial speed V,
// has the transverse frequencies omega_n = (n pi / L) (c^2 - V^2) / c and modes sin(n pi x / L)
// exp(i omega_n V x / (c^2 - V^2)), the first one's phase turning by pi V / (2 c) from L/4 to 3L/4.
// 20 elements on 0.5 m, EI = 1e-4 N m^2 (its share of omega_3^2 is about 1e-4), stretches 0 and
// 0.01 (T = 400 and 480 N): the first three frequencies within 1 % at V = 0 and V = c/2, the turn
// within 1 % of pi/4 at V = c/2 (0 at V = 0).
TEST(EulerianCable, TravellingSpanHasTheWickertMoteFrequencies) {
  const double spanLength = 0.5, eps0 = -0.05, rhoA = 0.8288, EA = 8000.0;
  for (double eps : {0.0, 0.01}) {
    const double tension = EA * (eps - eps0);
    const double c = std::sqrt(tension * (1.0 + eps) / rhoA);
    for (double fraction : {0.0, 0.5}) {
      const double V = fraction * c;
      const EulerianSpanModes modes = eulerianSpanModes(20, spanLength, eps, V, 1e-4);
      ASSERT_GE(modes.omega.size(), 3u);
      for (int mode = 1; mode <= 3; ++mode) {
        const double expected = mode * kPi / spanLength * (c * c - V * V) / c;
        const double error = (modes.omega[mode - 1] - expected) / expected;
        std::printf("[figure] eulerian travelling span, eps %.2f, V = %.2f c, mode %d: %.4f rad/s, Wickert-Mote %.4f (%+.4f %%)\n",
                    eps, fraction, mode, modes.omega[mode - 1], expected, 100.0 * error);
        EXPECT_LT(std::abs(error), 0.01);
      }
      const double turn = kPi * V / (2.0 * c);
      std::printf("[figure] eulerian travelling span, eps %.2f, V = %.2f c: first mode turns %.5f rad, expected %.5f\n", eps,
                  fraction, modes.firstModeTurn, turn);
      EXPECT_NEAR(modes.firstModeTurn, turn, 0.01 * kPi / 4.0);
    }
  }
}
