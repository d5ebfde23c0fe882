// Static validation of the planar ANCF cable element (model/include/beltsim/element/ancf_cable2d.hpp)
// against beam theory, with a small dense Newton solver of this test's own (Eigen dynamic types
// are fine on the host). Each test states one behaviour and its reference.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "beltsim/element/ancf_cable2d.hpp"

namespace {

using Element = beltsim::AncfCable2D<double>;
using Parameters = Element::Parameters;
using beltsim::AxialRule;
using beltsim::Status;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kPi = 3.14159265358979323846;
constexpr AxialRule kRules[3] = {AxialRule::kA, AxialRule::kB,
                                           AxialRule::kC};
constexpr const char* kRuleNames[3] = {"a", "b", "c"};

// An open chain of equal elements: element e connects node e to node e + 1; node k owns the
// system coordinates 4k .. 4k+3 = [r_x, r_y, r'_x, r'_y].
struct Chain {
  Element element;
  int elements = 0;

  int size() const { return 4 * (elements + 1); }

  // Q_int of the chain (qDot = 0) and, if requested, dQ/dq.
  bool assemble(const VectorXd& q, VectorXd& force, MatrixXd* stiffness) const {
    force = VectorXd::Zero(size());
    if (stiffness) *stiffness = MatrixXd::Zero(size(), size());
    for (int e = 0; e < elements; ++e) {
      const Element::Vector8 qe = q.segment<8>(4 * e);
      Element::Vector8 fe;
      Element::Matrix8 ke, de;
      const Status s = stiffness
                           ? element.internalForceAndJacobian(qe, Element::Vector8::Zero(), fe, ke, de)
                           : element.internalForce(qe, Element::Vector8::Zero(), fe);
      if (s != Status::kOk) return false;
      force.segment<8>(4 * e) += fe;
      if (stiffness) stiffness->block<8, 8>(4 * e, 4 * e) += ke;
    }
    return true;
  }

  // Straight chain along x from the origin with unit slopes (stress-free for eps0 = 0).
  VectorXd straight() const {
    VectorXd q = VectorXd::Zero(size());
    for (int k = 0; k <= elements; ++k) {
      q(4 * k) = k * element.parameters().length;
      q(4 * k + 2) = 1.0;
    }
    return q;
  }
};

// External load: generalized force F(q) (physical, RHS sign) and dF/dq.
using Load = std::function<void(const VectorXd& q, VectorXd& f, MatrixXd& df)>;

// Newton on the free coordinates: Q_int(q) - F(q) = 0. Returns the iteration count, -1 on failure.
int solveStatic(const Chain& chain, const std::vector<int>& freeDofs, const Load& load,
                VectorXd& q) {
  const int nf = static_cast<int>(freeDofs.size());
  for (int iteration = 1; iteration <= 50; ++iteration) {
    VectorXd force;
    MatrixXd stiffness;
    if (!chain.assemble(q, force, &stiffness)) return -1;
    VectorXd f;
    MatrixXd df;
    load(q, f, df);
    const VectorXd residual = force - f;
    const MatrixXd jacobian = stiffness - df;
    VectorXd rf(nf);
    MatrixXd jf(nf, nf);
    for (int i = 0; i < nf; ++i) {
      rf(i) = residual(freeDofs[i]);
      for (int j = 0; j < nf; ++j) jf(i, j) = jacobian(freeDofs[i], freeDofs[j]);
    }
    const VectorXd dq = jf.fullPivLu().solve(-rf);
    for (int i = 0; i < nf; ++i) q(freeDofs[i]) += dq(i);
    if (!dq.allFinite()) return -1;
    if (dq.norm() < 1e-13 * (1.0 + q.norm())) return iteration;
  }
  return -1;
}

std::vector<int> freeDofsExcept(int size, std::initializer_list<int> fixed) {
  std::vector<int> dofs;
  for (int i = 0; i < size; ++i) {
    bool isFixed = false;
    for (int f : fixed) isFixed = isFixed || f == i;
    if (!isFixed) dofs.push_back(i);
  }
  return dofs;
}

Parameters cantileverParameters(AxialRule rule, int elements) {
  // A slender 1 m beam: EI = 1 N m^2, EA = 1e5 N (slenderness L / sqrt(EI/EA) = 316).
  Parameters p;
  p.length = 1.0 / elements;
  p.massPerLength = 1.0;
  p.EA = 1e5;
  p.EI = 1.0;
  p.axialRule = rule;
  return p;
}

}  // namespace

// Euler-Bernoulli cantilever, tip load P, small deflection: w_tip = P L^3 / (3 EI). Cubic Hermite
// elements are nodally exact for this linear problem, so 8 elements must agree within 0.5 %
// (the geometric nonlinearity at w/L = 1e-3 is of relative order 1e-6).
TEST(AncfStatics, CantileverTipLoadMatchesBeamTheory) {
  for (int s = 0; s < 3; ++s) {
    Chain chain;
    chain.elements = 8;
    ASSERT_TRUE(chain.element.setUp(cantileverParameters(kRules[s], 8)).ok());
    const double totalLength = 1.0, EI = 1.0;
    const double expected = 1e-3 * totalLength;  // target deflection
    const double P = 3.0 * EI * expected / (totalLength * totalLength * totalLength);
    const int tipY = 4 * chain.elements + 1;
    const Load load = [&](const VectorXd& q, VectorXd& f, MatrixXd& df) {
      f = VectorXd::Zero(q.size());
      df = MatrixXd::Zero(q.size(), q.size());
      f(tipY) = -P;
    };
    VectorXd q = chain.straight();
    const int iterations = solveStatic(chain, freeDofsExcept(chain.size(), {0, 1, 2, 3}), load, q);
    ASSERT_GT(iterations, 0);
    const double deflection = -q(tipY);
    const double error = (deflection - expected) / expected;
    std::printf("[figure] cantilever rule %s: tip deflection %.9e m, beam theory %.9e m, "
                "error %.3e %% (%d Newton iterations)\n",
                kRuleNames[s], deflection, expected, 100.0 * error, iterations);
    RecordProperty(std::string("cantilever_error_percent_") + kRuleNames[s],
                   std::to_string(100.0 * error));
    EXPECT_LT(std::abs(error), 0.005);
  }
}

// Pure end moment M = 2 pi EI / L on a cantilever: the exact solution is a full circle of
// circumference L, so the tip returns to the clamp. 16 elements, 20 load steps; the tip must be
// within 1 % of L from the clamp, and the axial strain must stay ~0 (pure bending; |eps| < 1e-4,
// the interpolation error of a cubic over 22.5 degrees of arc).
// The moment is applied as the virtual work M dtheta of the tip slope angle,
// F_r' = M (-r'_y, r'_x) / |r'|^2, with its load stiffness in Newton.
TEST(AncfStatics, EndMomentRollsCantileverIntoFullCircle) {
  for (int s = 0; s < 3; ++s) {
    Chain chain;
    chain.elements = 16;
    ASSERT_TRUE(chain.element.setUp(cantileverParameters(kRules[s], 16)).ok());
    const double totalLength = 1.0, EI = 1.0;
    const double fullMoment = 2.0 * kPi * EI / totalLength;
    const int tip = 4 * chain.elements;
    double moment = 0.0;
    const Load load = [&](const VectorXd& q, VectorXd& f, MatrixXd& df) {
      f = VectorXd::Zero(q.size());
      df = MatrixXd::Zero(q.size(), q.size());
      const double sx = q(tip + 2), sy = q(tip + 3);
      const double g = sx * sx + sy * sy;
      f(tip + 2) = -moment * sy / g;
      f(tip + 3) = moment * sx / g;
      // d/dr' of M R r' / g = M (R / g - 2 R r' r'^T / g^2), R = [0 -1; 1 0]
      df(tip + 2, tip + 2) = moment * (2.0 * sy * sx / (g * g));
      df(tip + 2, tip + 3) = moment * (-1.0 / g + 2.0 * sy * sy / (g * g));
      df(tip + 3, tip + 2) = moment * (1.0 / g - 2.0 * sx * sx / (g * g));
      df(tip + 3, tip + 3) = moment * (-2.0 * sx * sy / (g * g));
    };
    VectorXd q = chain.straight();
    const std::vector<int> freeDofs = freeDofsExcept(chain.size(), {0, 1, 2, 3});
    const int steps = 20;
    int totalIterations = 0;
    for (int step = 1; step <= steps; ++step) {
      moment = fullMoment * step / steps;
      const int iterations = solveStatic(chain, freeDofs, load, q);
      ASSERT_GT(iterations, 0) << "load step " << step;
      totalIterations += iterations;
    }
    const double closure = std::hypot(q(tip), q(tip + 1)) / totalLength;
    double maxAbsN = 0.0, maxAbsStrain = 0.0;
    for (int e = 0; e < chain.elements; ++e) {
      for (int k = 0; k <= 10; ++k) {
        Element::Section section;
        ASSERT_EQ(chain.element.section(q.segment<8>(4 * e), Element::Vector8::Zero(),
                                        chain.element.parameters().length * k / 10.0, section),
                  Status::kOk);
        maxAbsN = std::max(maxAbsN, std::abs(section.axialForce));
        maxAbsStrain = std::max(maxAbsStrain, std::abs(section.axialStrain));
      }
    }
    std::printf("[figure] full circle rule %s: tip distance from clamp %.3e L (%.4f %%), "
                "max |N| %.3e N, max |eps| %.3e, %d Newton iterations in %d load steps\n",
                kRuleNames[s], closure, 100.0 * closure, maxAbsN, maxAbsStrain, totalIterations,
                steps);
    RecordProperty(std::string("circle_closure_percent_") + kRuleNames[s],
                   std::to_string(100.0 * closure));
    EXPECT_LT(closure, 0.01);
    // Pure bending keeps the centreline inextensible up to the cubic interpolation of the arc.
    EXPECT_LT(maxAbsStrain, 1e-4);
  }
}

// Scheme comparison (docs/model_element.md §2.6, docs/model_differences.md §10.29; paper [P] Sect. 2.1 and Fig. 22): a pre-stretched belt
// (EA = 8000 N, EI = 1.333e-3 N m^2, eps0 = -0.05, i.e. about 400 N) lying on a quarter circle of
// radius 0.1 m, 10 elements of parameter length (pi R / 2) / 10.
// Loading, chosen to be reproducible without a contact model: the quarter is one quarter of a
// closed ring of 40 elements held on a pulley. Every node position is pinned on the arc (standing
// in for the pulley contact; in the full ring the tangential reactions vanish by symmetry), the
// cut ends carry the ring's symmetry conditions (end slopes tangent, magnitude free), and all
// other slope coordinates are found by a static equilibrium solve. The slopes are exactly the
// coordinates through which the integration rules act, so the equilibrium carries each rule's
// axial/bending coupling, and without ends every element is equivalent: the oscillation measured
// is the element's own. (Placing the slopes kinematically on the arc as well gives the same N(x)
// for every rule, since N(x) is then a pure function of the interpolation; that figure is
// printed as the baseline.) N is sampled at 200 points per element; oscillation = max N - min N.
TEST(AncfStatics, AxialForceOscillationOnQuarterCirclePerScheme) {
  const double radius = 0.1;
  const int elements = 10;
  const double arcLength = 0.5 * kPi * radius;
  const double length = arcLength / elements;
  const int samplesPerElement = 200;

  auto oscillation = [&](const Chain& chain, const VectorXd& q, double& minN, double& maxN) {
    minN = 1e300;
    maxN = -1e300;
    for (int e = 0; e < chain.elements; ++e) {
      for (int k = 0; k <= samplesPerElement; ++k) {
        Element::Section section;
        EXPECT_EQ(chain.element.section(q.segment<8>(4 * e), Element::Vector8::Zero(),
                                        length * k / samplesPerElement, section),
                  Status::kOk);
        minN = std::min(minN, section.axialForce);
        maxN = std::max(maxN, section.axialForce);
      }
    }
    return maxN - minN;
  };

  double result[3] = {0.0, 0.0, 0.0};
  double baseline = 0.0;
  for (int s = 0; s < 3; ++s) {
    Parameters p;
    p.length = length;
    p.massPerLength = 0.8288;
    p.EA = 8000.0;
    p.EI = 1.333e-3;
    p.referenceAxialStrain = -0.05;
    p.axialRule = kRules[s];
    Chain chain;
    chain.elements = elements;
    ASSERT_TRUE(chain.element.setUp(p).ok());
    // Nodes on the arc, counter-clockwise from angle 0, slopes = unit tangents.
    VectorXd q(chain.size());
    std::vector<int> freeDofs;
    for (int k = 0; k <= elements; ++k) {
      const double angle = (0.5 * kPi) * k / elements;
      q(4 * k) = radius * std::cos(angle);
      q(4 * k + 1) = radius * std::sin(angle);
      q(4 * k + 2) = -std::sin(angle);
      q(4 * k + 3) = std::cos(angle);
      // Symmetry at the cut ends: node 0 (tangent (0, 1)) keeps r'_x = 0, node 10 (tangent
      // (-1, 0)) keeps r'_y = 0; the slope magnitudes stay free.
      if (k != 0) freeDofs.push_back(4 * k + 2);
      if (k != elements) freeDofs.push_back(4 * k + 3);
    }
    q(2) = 0.0;
    q(4 * elements + 3) = 0.0;
    double minN = 0.0, maxN = 0.0;
    if (s == 0) baseline = oscillation(chain, q, minN, maxN);
    const Load noLoad = [](const VectorXd& qq, VectorXd& f, MatrixXd& df) {
      f = VectorXd::Zero(qq.size());
      df = MatrixXd::Zero(qq.size(), qq.size());
    };
    const int iterations = solveStatic(chain, freeDofs, noLoad, q);
    ASSERT_GT(iterations, 0) << "rule " << kRuleNames[s];
    result[s] = oscillation(chain, q, minN, maxN);
    std::printf("[figure] quarter circle rule %s: N in [%.4f, %.4f] N, oscillation %.4f N, "
                "%d Newton iterations\n",
                kRuleNames[s], minN, maxN, result[s], iterations);
    RecordProperty(std::string("quarter_circle_oscillation_N_") + kRuleNames[s],
                   std::to_string(result[s]));
  }
  std::printf("[figure] quarter circle baseline (slopes placed on the arc, no solve, any rule): "
              "oscillation %.4f N\n",
              baseline);
  // Measured (x86-64): a 4.92 N, b 4.92 N, c 1.23 N. Scheme c is the smoothest by a factor of
  // about 4, as the paper reports (Fig. 22); a and b are nearly equal.
  EXPECT_LT(result[2], 0.5 * result[0]);
  EXPECT_LT(result[2], 0.5 * result[1]);
}
