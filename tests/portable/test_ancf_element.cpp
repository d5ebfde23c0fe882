// Planar ANCF cable element (model/include/beltsim/element/ancf_cable2d.hpp), checked on every target
// (host, Cortex-M7 under QEMU, aarch64 under qemu-user). Each test states one behaviour and its
// reference. The BITS lines at the end feed the cross-target bit-identity comparison.
#include <cstdint>
#include <cstring>

#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/element/quadrature.hpp"
#include "minitest.hpp"

namespace {

using Element = beltsim::AncfCable2D<double>;
using Parameters = Element::Parameters;
using Vector8 = Element::Vector8;
using Matrix8 = Element::Matrix8;
using beltsim::AxialRule;
using beltsim::Status;

constexpr AxialRule kRules[3] = {AxialRule::kA, AxialRule::kB,
                                           AxialRule::kC};
constexpr const char* kRuleNames[3] = {"a", "b", "c"};

// Tiny deterministic generator (64-bit LCG, Knuth's MMIX constants): same sequence everywhere.
struct Lcg {
  std::uint64_t state;
  double unit() {  // [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
};

double absolute(double v) { return v < 0 ? -v : v; }

double frobenius(const Matrix8& m) { return m.norm(); }

void printBits(const char* name, double value) {
  minitest::print("BITS ");
  minitest::print(name);
  minitest::print(" ");
  minitest::printHexBits(value);
  minitest::print("\n");
}

void printFigure(const char* name, double value) {
  minitest::print("  ");
  minitest::print(name);
  minitest::print(" = ");
  minitest::printDouble(value);
  minitest::print("\n");
}

// The paper's belt (docs/model_start_and_benchmark.md §9): rho A = 0.8288 kg/m, EA = 8000 N, EI = 1.333e-3 N m^2.
Parameters beltParameters(AxialRule rule) {
  Parameters p;
  p.length = 0.1;
  p.massPerLength = 0.8288;
  p.EA = 8000.0;
  p.EI = 1.333e-3;
  p.gravity << 0.0, -9.81;
  p.axialRule = rule;
  return p;
}

// A straight element of length `length` along x, slopes (1, 0): eps = 0, K = 0 everywhere.
Vector8 straightState(double length) {
  Vector8 q;
  q << 0.0, 0.0, 1.0, 0.0, length, 0.0, 1.0, 0.0;
  return q;
}

// A random large-deformation state: chord of 0.6..1.3 L in a random direction, nodal slopes
// 0.5..1.2 along the chord plus up to +-0.8 across it (kinks up to about 58 degrees), random
// velocities of order 1 m/s and 1/s. No trigonometric functions needed.
void randomState(Lcg& rng, double length, Vector8& q, Vector8& qDot) {
  double dx = rng.uniform(-1.0, 1.0), dy = rng.uniform(-1.0, 1.0);
  const double dn = Eigen::numext::sqrt(dx * dx + dy * dy) + 1e-3;
  dx /= dn;
  dy /= dn;
  const double chord = length * rng.uniform(0.6, 1.3);
  const double ax = rng.uniform(-0.2, 0.2), ay = rng.uniform(-0.2, 0.2);
  q(0) = ax;
  q(1) = ay;
  q(4) = ax + chord * dx;
  q(5) = ay + chord * dy;
  for (int node = 0; node < 2; ++node) {
    const double along = rng.uniform(0.5, 1.2), across = rng.uniform(-0.8, 0.8);
    q(4 * node + 2) = along * dx - across * dy;
    q(4 * node + 3) = along * dy + across * dx;
  }
  for (int i = 0; i < 8; ++i) qDot(i) = rng.uniform(-1.0, 1.0);
}

// Central finite differences of Q_int with respect to q (or qDot when `velocity` is true).
Matrix8 finiteDifferenceJacobian(const Element& e, const Vector8& q, const Vector8& qDot,
                                 bool velocity, bool& ok) {
  const double h = 1e-6;
  Matrix8 j = Matrix8::Zero();
  ok = true;
  for (int c = 0; c < 8; ++c) {
    Vector8 qp = q, qm = q, vp = qDot, vm = qDot;
    if (velocity) {
      vp(c) += h;
      vm(c) -= h;
    } else {
      qp(c) += h;
      qm(c) -= h;
    }
    Vector8 fp = Vector8::Zero(), fm = Vector8::Zero();
    const bool okPlus = e.internalForce(qp, vp, fp) == Status::kOk;
    const bool okMinus = e.internalForce(qm, vm, fm) == Status::kOk;
    ok = ok && okPlus && okMinus;
    j.col(c) = (fp - fm) / (2.0 * h);
  }
  return j;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Quadrature (docs/model_element.md §2.6): weights sum to 2 (the length of [-1, 1]) and each rule integrates the
// monomials up to its degree exactly: GL n points degree 2n-1, Lobatto 3 points degree 3.
MT_TEST(quadrature_rules_integrate_monomials_up_to_their_degree) {
  struct Case {
    const double* points;
    const double* weights;
    int count;
    int degree;
  };
  const Case cases[] = {
      {beltsim::kGaussLegendre2.points, beltsim::kGaussLegendre2.weights, 2, 3},
      {beltsim::kGaussLegendre3.points, beltsim::kGaussLegendre3.weights, 3, 5},
      {beltsim::kGaussLegendre4.points, beltsim::kGaussLegendre4.weights, 4, 7},
      {beltsim::kGaussLegendre5.points, beltsim::kGaussLegendre5.weights, 5, 9},
      {beltsim::kLobatto3.points, beltsim::kLobatto3.weights, 3, 3},
  };
  for (const Case& rule : cases) {
    for (int k = 0; k <= rule.degree; ++k) {
      double sum = 0.0;
      for (int i = 0; i < rule.count; ++i) {
        double power = 1.0;
        for (int m = 0; m < k; ++m) power *= rule.points[i];
        sum += rule.weights[i] * power;
      }
      const double exact = (k % 2 == 1) ? 0.0 : 2.0 / (k + 1);  // int_{-1}^{1} z^k dz
      MT_EXPECT_NEAR(sum, exact, 1e-15);
    }
  }
  // Scheme c samples the axial term at x = 0, L/2, L and bending at L/2 (1 -+ 1/sqrt 3).
  MT_EXPECT(beltsim::axialPointCount(AxialRule::kC) == 3);
  MT_EXPECT(beltsim::bendingPointCount(AxialRule::kC) == 2);
  MT_EXPECT_NEAR(beltsim::kGaussLegendre2.points[1] * beltsim::kGaussLegendre2.points[1], 1.0 / 3.0,
                 1e-16);
}

// ---------------------------------------------------------------------------------------------
// Mass (docs/model_element.md §2.3): the closed form integrates rho A S^T S exactly, so the total mass is rho A L
// and a rigid translation with velocity v has kinetic energy m |v|^2 / 2 (rel. 1e-12).
MT_TEST(mass_matrix_gives_total_mass_and_rigid_translation_energy) {
  Element e;
  const Parameters p = beltParameters(AxialRule::kC);
  MT_EXPECT(e.setUp(p).ok());
  const Matrix8& m = e.massMatrix();
  const double totalMass = p.massPerLength * p.length;
  Vector8 ex = Vector8::Zero();
  ex(0) = ex(4) = 1.0;  // unit translation in x: positions move, slopes do not
  MT_EXPECT_REL(ex.dot(m * ex), totalMass, 1e-12);
  Vector8 v = Vector8::Zero();
  v << 0.7, -1.9, 0.0, 0.0, 0.7, -1.9, 0.0, 0.0;
  double kinetic = 0.0;
  MT_EXPECT(e.kineticEnergy(v, kinetic) == Status::kOk);
  MT_EXPECT_REL(kinetic, 0.5 * totalMass * (0.7 * 0.7 + 1.9 * 1.9), 1e-12);
  // Symmetric, and equal to 4-point Gauss-Legendre of rho A S^T S (degree 6 integrand).
  Matrix8 integrated = Matrix8::Zero();
  for (int i = 0; i < 4; ++i) {
    const double x = 0.5 * p.length * (1.0 + beltsim::kGaussLegendre4.points[i]);
    const auto h = beltsim::HermiteShape<double>::at(x, p.length);
    const Eigen::Matrix<double, 2, 8> s = beltsim::HermiteShape<double>::expand(h.s);
    integrated += (0.5 * p.length * beltsim::kGaussLegendre4.weights[i] * p.massPerLength) *
                  (s.transpose() * s);
  }
  MT_EXPECT((m - m.transpose()).cwiseAbs().maxCoeff() == 0.0);
  MT_EXPECT_NEAR((m - integrated).cwiseAbs().maxCoeff(), 0.0, 1e-14 * m.cwiseAbs().maxCoeff());
}

// Gravity (docs/model_element.md §2.7): the generalized force equals int rho A S^T g dx and its translational
// components add up to m g.
MT_TEST(gravity_force_is_consistent_with_the_shape_functions) {
  Element e;
  const Parameters p = beltParameters(AxialRule::kC);
  MT_EXPECT(e.setUp(p).ok());
  const Vector8& fg = e.gravityForce();
  const double m = p.massPerLength * p.length;
  MT_EXPECT_REL(fg(1) + fg(5), m * p.gravity(1), 1e-14);
  MT_EXPECT_NEAR(fg(0) + fg(4), 0.0, 1e-18);
  Vector8 integrated = Vector8::Zero();
  for (int i = 0; i < 2; ++i) {
    const double x = 0.5 * p.length * (1.0 + beltsim::kGaussLegendre2.points[i]);
    const auto h = beltsim::HermiteShape<double>::at(x, p.length);
    integrated += (0.5 * p.length * p.massPerLength) *
                  (beltsim::HermiteShape<double>::expand(h.s).transpose() * p.gravity);
  }
  MT_EXPECT_NEAR((fg - integrated).cwiseAbs().maxCoeff(), 0.0, 1e-15);
}

// ---------------------------------------------------------------------------------------------
// Pre-stretch (docs/model_element.md §2.4): an element at its straight parameter length with eps0 = -0.05 and
// EA = 8000 N carries N = -EA eps0 = +400 N (tension) everywhere, in every rule, and its LHS
// force pulls the nodes together: Q = N [-1 0 0 0 1 0 0 0].
MT_TEST(prestretched_straight_element_carries_400_newton_tension) {
  for (int s = 0; s < 3; ++s) {
    Element e;
    Parameters p = beltParameters(kRules[s]);
    p.referenceAxialStrain = -0.05;
    MT_EXPECT(e.setUp(p).ok());
    const Vector8 q = straightState(p.length);
    const Vector8 qDot = Vector8::Zero();
    const double xs[] = {0.0, 0.25 * p.length, 0.5 * p.length, 0.9 * p.length, p.length};
    for (double x : xs) {
      Element::Section section;
      MT_EXPECT(e.section(q, qDot, x, section) == Status::kOk);
      MT_EXPECT_REL(section.axialForce, 400.0, 1e-12);
      MT_EXPECT_NEAR(section.axialStrain, 0.0, 1e-15);
      MT_EXPECT_NEAR(section.bendingMoment, 0.0, 1e-15);
    }
    Vector8 force;
    MT_EXPECT(e.internalForce(q, qDot, force) == Status::kOk);
    Vector8 expected = Vector8::Zero();
    expected(0) = -400.0;
    expected(4) = 400.0;
    MT_EXPECT_NEAR((force - expected).cwiseAbs().maxCoeff(), 0.0, 1e-10);
  }
}

// Outputs (docs/model_element.md §2.9): position, slope and velocity interpolate the nodal values; at the nodes
// they return them exactly. The section's force includes the strain-rate damping d_eps eps_dot.
MT_TEST(section_outputs_interpolate_nodes_and_include_damping) {
  Element e;
  Parameters p = beltParameters(AxialRule::kC);
  p.axialDamping = 2.0;
  MT_EXPECT(e.setUp(p).ok());
  Vector8 q, qDot;
  Lcg rng{7};
  randomState(rng, p.length, q, qDot);
  Element::Vector2 r, rp, v;
  MT_EXPECT(e.position(q, p.length, r) == Status::kOk);
  MT_EXPECT(r(0) == q(4) && r(1) == q(5));
  MT_EXPECT(e.slope(q, 0.0, rp) == Status::kOk);
  MT_EXPECT(rp(0) == q(2) && rp(1) == q(3));
  MT_EXPECT(e.velocity(qDot, 0.0, v) == Status::kOk);
  MT_EXPECT(v(0) == qDot(0) && v(1) == qDot(1));
  Element::Section s;
  MT_EXPECT(e.section(q, qDot, 0.0, s) == Status::kOk);
  const double l = Eigen::numext::sqrt(q(2) * q(2) + q(3) * q(3));
  const double epsDot = (q(2) * qDot(2) + q(3) * qDot(3)) / l;
  MT_EXPECT_REL(s.axialForce, p.EA * (l - 1.0) + 2.0 * epsDot, 1e-13);
  // x outside [0, L] is rejected.
  MT_EXPECT(e.section(q, qDot, 1.01 * p.length, s) == Status::kInvalidParameter);
  MT_EXPECT(e.position(q, -1e-9, r) == Status::kInvalidParameter);
}

// The strain rates used by the damping are the true time derivatives (docs/model_element.md §2.4; seed eq. 7-8):
// eps_dot and K_dot equal central differences of eps and K along q + t qDot (rel. 1e-7).
// (Seed eq. 8 as printed has (S'' qDot) x r' as second term; d/dt (r' x r'') = r'_dot x r'' +
// r' x r''_dot has the opposite sign there. This test pins the correct one.)
MT_TEST(strain_rates_are_time_derivatives_of_the_strains) {
  Element e;
  MT_EXPECT(e.setUp(beltParameters(AxialRule::kC)).ok());
  Lcg rng{31};
  for (int trial = 0; trial < 5; ++trial) {
    Vector8 q, qDot;
    randomState(rng, 0.1, q, qDot);
    const double xs[] = {0.0, 0.021, 0.05, 0.077, 0.1};
    for (double x : xs) {
      const double h = 1e-6;
      Element::Section s0, sp, sm;
      MT_EXPECT(e.section(q, qDot, x, s0) == Status::kOk);
      MT_EXPECT(e.section(q + h * qDot, qDot, x, sp) == Status::kOk);
      MT_EXPECT(e.section(q - h * qDot, qDot, x, sm) == Status::kOk);
      const double epsRate = (sp.axialStrain - sm.axialStrain) / (2.0 * h);
      const double curvatureRate = (sp.curvature - sm.curvature) / (2.0 * h);
      MT_EXPECT_NEAR(s0.axialStrainRate, epsRate, 1e-7 * (1.0 + absolute(epsRate)));
      MT_EXPECT_NEAR(s0.curvatureRate, curvatureRate, 1e-7 * (1.0 + absolute(curvatureRate)));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Q_int is the gradient of the quadrature strain energy U (docs/model_element.md §2.5 from the virtual work):
// central differences of U agree with Q(q, 0) to 1e-7 relative.
MT_TEST(internal_force_is_the_gradient_of_the_strain_energy) {
  Lcg rng{2024};
  double worst = 0.0;
  for (int s = 0; s < 3; ++s) {
    Element e;
    Parameters p = beltParameters(kRules[s]);
    p.EA = 50.0;  // comparable axial and bending parts for L = 0.1
    p.EI = 0.2;
    p.referenceAxialStrain = -0.05;
    p.referenceCurvature = 3.0;
    MT_EXPECT(e.setUp(p).ok());
    for (int trial = 0; trial < 3; ++trial) {
      Vector8 q, qDot;
      randomState(rng, p.length, q, qDot);
      Vector8 force;
      MT_EXPECT(e.internalForce(q, Vector8::Zero(), force) == Status::kOk);
      Vector8 gradient;
      const double h = 1e-6;
      for (int c = 0; c < 8; ++c) {
        Vector8 qp = q, qm = q;
        qp(c) += h;
        qm(c) -= h;
        double up = 0.0, um = 0.0;
        MT_EXPECT(e.elasticEnergy(qp, up) == Status::kOk);
        MT_EXPECT(e.elasticEnergy(qm, um) == Status::kOk);
        gradient(c) = (up - um) / (2.0 * h);
      }
      const double error = (gradient - force).norm() / force.norm();
      if (error > worst) worst = error;
      MT_EXPECT(error < 1e-7);
    }
  }
  printFigure("energy_gradient_max_rel_error", worst);
}

// The analytic Jacobians (docs/model_element.md §2.8) match central finite differences of Q_int to 1e-6 relative
// (Frobenius norm) for random large-deformation states: all rules, with and without eps0/K0
// and strain-rate damping (d_eps, d_K != 0), axial- and bending-dominated parameters.
MT_TEST(jacobians_match_central_differences_in_large_deformation) {
  Lcg rng{12345};
  double worstStiffness = 0.0, worstDamping = 0.0;
  for (int s = 0; s < 3; ++s) {
    for (int variant = 0; variant < 4; ++variant) {
      const bool bendingDominated = (variant & 1) != 0;
      const bool prestressAndDamping = (variant & 2) != 0;
      Parameters p = beltParameters(kRules[s]);
      p.length = 0.3;
      if (bendingDominated) {
        p.EA = 1e-3;
        p.EI = 1.5;
      }
      if (prestressAndDamping) {
        p.referenceAxialStrain = -0.05;
        p.referenceCurvature = 2.5;
        p.axialDamping = bendingDominated ? 1e-4 : 40.0;
        p.bendingDamping = bendingDominated ? 0.3 : 2e-4;
      }
      Element e;
      MT_EXPECT(e.setUp(p).ok());
      for (int trial = 0; trial < 4; ++trial) {
        Vector8 q, qDot;
        randomState(rng, p.length, q, qDot);
        Vector8 force;
        Matrix8 stiffness, damping;
        MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, stiffness, damping) == Status::kOk);
        bool ok = false;
        const Matrix8 fdStiffness = finiteDifferenceJacobian(e, q, qDot, false, ok);
        MT_EXPECT(ok);
        const Matrix8 fdDamping = finiteDifferenceJacobian(e, q, qDot, true, ok);
        MT_EXPECT(ok);
        const double errK = frobenius(stiffness - fdStiffness) / frobenius(stiffness);
        if (errK > worstStiffness) worstStiffness = errK;
        MT_EXPECT(errK < 1e-6);
        if (prestressAndDamping) {
          const double errD = frobenius(damping - fdDamping) / frobenius(damping);
          if (errD > worstDamping) worstDamping = errD;
          MT_EXPECT(errD < 1e-6);
        } else {
          MT_EXPECT(damping.cwiseAbs().maxCoeff() == 0.0);
        }
        // The force returned with the Jacobian is the fast path's force, bit for bit.
        Vector8 fast;
        MT_EXPECT(e.internalForce(q, qDot, fast) == Status::kOk);
        MT_EXPECT((fast - force).cwiseAbs().maxCoeff() == 0.0);
      }
    }
    minitest::print("  rule ");
    minitest::print(kRuleNames[s]);
    minitest::print(" done\n");
  }
  printFigure("fd_stiffness_max_rel_frobenius_error", worstStiffness);
  printFigure("fd_damping_max_rel_frobenius_error", worstDamping);
}

// Without damping, dQ/dq is the Hessian of the strain energy: symmetric to round-off.
// With damping, Q(q, qDot) - Q(q, 0) = dQ/dqDot qDot exactly (Q is linear in qDot).
MT_TEST(undamped_stiffness_is_symmetric_and_damping_force_is_linear_in_velocity) {
  Lcg rng{99};
  for (int s = 0; s < 3; ++s) {
    Parameters p = beltParameters(kRules[s]);
    p.referenceAxialStrain = -0.05;
    Element e;
    MT_EXPECT(e.setUp(p).ok());
    Vector8 q, qDot, force;
    randomState(rng, p.length, q, qDot);
    Matrix8 stiffness, damping;
    MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, stiffness, damping) == Status::kOk);
    MT_EXPECT((stiffness - stiffness.transpose()).norm() < 1e-12 * stiffness.norm());

    p.axialDamping = 30.0;
    p.bendingDamping = 1e-3;
    MT_EXPECT(e.setUp(p).ok());
    Vector8 atRest;
    MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, stiffness, damping) == Status::kOk);
    MT_EXPECT(e.internalForce(q, Vector8::Zero(), atRest) == Status::kOk);
    MT_EXPECT((force - atRest - damping * qDot).norm() < 1e-12 * force.norm());
  }
}

// The viscous part alone (viscousForce: the strain-rate damping, N = d_eps eps_dot, M_b = d_K K_dot;
// the eulerian element takes its elastic force from its own strain) is the internal force less its
// value at rest, Q_int(q, qDot) - Q_int(q, 0), and its Jacobians are the differences of theirs
// (the damping matrix is the same): to rounding, for every rule, with bending damping and without
// it (then the bending points are skipped), under pre-strain and pre-curvature, which it must not
// see.
MT_TEST(viscous_part_is_the_internal_force_less_its_value_at_rest) {
  Lcg rng{4242};
  for (int s = 0; s < 3; ++s) {
    for (const double bendingDamping : {2e-4, 0.0}) {
      Parameters p = beltParameters(kRules[s]);
      p.referenceAxialStrain = -0.05;
      p.referenceCurvature = 2.5;
      p.axialDamping = 40.0;
      p.bendingDamping = bendingDamping;
      Element e;
      MT_EXPECT(e.setUp(p).ok());
      Vector8 q, qDot, force, atRest, viscous, viscousOnly;
      randomState(rng, p.length, q, qDot);
      Matrix8 stiffness, damping, restStiffness, restDamping, viscousStiffness, viscousDamping;
      MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, stiffness, damping) == Status::kOk);
      MT_EXPECT(e.internalForceAndJacobian(q, Vector8::Zero(), atRest, restStiffness, restDamping) == Status::kOk);
      MT_EXPECT(e.viscousForceAndJacobian(q, qDot, viscous, viscousStiffness, viscousDamping) == Status::kOk);
      MT_EXPECT(e.viscousForce(q, qDot, viscousOnly) == Status::kOk);
      const Vector8 expected = force - atRest;
      MT_EXPECT(expected.norm() > 1e-3 * force.norm());  // the damping counts at these rates
      MT_EXPECT((viscous - expected).norm() < 1e-10 * force.norm());
      MT_EXPECT((viscousOnly - viscous).cwiseAbs().maxCoeff() == 0.0);
      MT_EXPECT(frobenius(viscousStiffness - (stiffness - restStiffness)) < 1e-10 * frobenius(stiffness));
      MT_EXPECT(frobenius(viscousDamping - damping) < 1e-13 * frobenius(damping));
    }
  }
}

// The combined Newton matrix cq K + cv D (the belt drive's element block without the mass
// term) applies the factors inside the integration-point loop; it must equal the same
// combination of the separate Jacobians (which jacobians_match_central_differences_in_large_
// deformation checks against finite differences, with these prestress and damping values) to
// rounding, for every rule, and return the same force bit for bit. Factors: trapezoidal rule
// at h = 1e-3 s.
MT_TEST(combined_jacobian_is_the_factor_weighted_sum_of_stiffness_and_damping) {
  const double cq = 0.25 * 1e-6, cv = 0.5 * 1e-3;
  Lcg rng{777};
  for (int s = 0; s < 3; ++s) {
    Parameters p = beltParameters(kRules[s]);
    p.referenceAxialStrain = -0.05;
    p.referenceCurvature = 2.5;
    p.axialDamping = 40.0;
    p.bendingDamping = 2e-4;
    Element e;
    MT_EXPECT(e.setUp(p).ok());
    for (int trial = 0; trial < 3; ++trial) {
      Vector8 q, qDot, force, combinedForce;
      randomState(rng, p.length, q, qDot);
      Matrix8 stiffness, damping, combined;
      MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, stiffness, damping) == Status::kOk);
      MT_EXPECT(e.internalForceAndCombinedJacobian(q, qDot, cq, cv, combinedForce, combined) == Status::kOk);
      const Matrix8 expected = cq * stiffness + cv * damping;
      // Both parts must count: the damping part is not negligible at these factors.
      MT_EXPECT(frobenius(cv * damping) > 1e-3 * frobenius(expected));
      MT_EXPECT(frobenius(combined - expected) < 1e-13 * frobenius(expected));
      MT_EXPECT((combinedForce - force).cwiseAbs().maxCoeff() == 0.0);
    }
  }
}

// Objectivity: rotating and translating the state rotates the force; a stress-free straight
// element (eps0 = 0, K0 = 0, |r'| = 1) in any rigid position has Q = 0.
MT_TEST(internal_force_is_objective_and_vanishes_for_rigid_placements) {
  const double c = 0.6, sn = 0.8;  // exact rotation by atan(4/3), no trigonometry needed
  Lcg rng{5};
  for (int s = 0; s < 3; ++s) {
    Parameters p = beltParameters(kRules[s]);
    p.axialDamping = 10.0;
    p.bendingDamping = 1e-3;
    Element e;
    MT_EXPECT(e.setUp(p).ok());
    Vector8 q, qDot;
    randomState(rng, p.length, q, qDot);
    Vector8 qr, vr;
    for (int j = 0; j < 4; ++j) {
      const double shift = (j % 2 == 0) ? 1.0 : 0.0;  // translate positions only
      qr(2 * j) = c * q(2 * j) - sn * q(2 * j + 1) + 0.3 * shift;
      qr(2 * j + 1) = sn * q(2 * j) + c * q(2 * j + 1) - 0.2 * shift;
      vr(2 * j) = c * qDot(2 * j) - sn * qDot(2 * j + 1);
      vr(2 * j + 1) = sn * qDot(2 * j) + c * qDot(2 * j + 1);
    }
    Vector8 f, fr;
    MT_EXPECT(e.internalForce(q, qDot, f) == Status::kOk);
    MT_EXPECT(e.internalForce(qr, vr, fr) == Status::kOk);
    Vector8 rotated;
    for (int j = 0; j < 4; ++j) {
      rotated(2 * j) = c * f(2 * j) - sn * f(2 * j + 1);
      rotated(2 * j + 1) = sn * f(2 * j) + c * f(2 * j + 1);
    }
    MT_EXPECT((rotated - fr).norm() < 1e-12 * f.norm());

    Vector8 rigid;
    rigid << 0.3, -0.2, c, sn, 0.3 + c * p.length, -0.2 + sn * p.length, c, sn;
    Vector8 zero;
    MT_EXPECT(e.internalForce(rigid, Vector8::Zero(), zero) == Status::kOk);
    MT_EXPECT(zero.cwiseAbs().maxCoeff() < 1e-12 * p.EA);
  }
}

// ---------------------------------------------------------------------------------------------
// Parameter validation (status.hpp): every non-physical or non-finite parameter is rejected
// with its name, and a rejected set-up leaves the element unusable.
MT_TEST(invalid_parameters_are_rejected_by_name) {
  const double nan = __builtin_nan("");
  const double inf = __builtin_inf();
  struct Case {
    const char* name;
    void (*apply)(Parameters&, double, double);
  };
  const Case cases[] = {
      {"length", [](Parameters& p, double, double) { p.length = 0.0; }},
      {"length", [](Parameters& p, double, double) { p.length = -0.1; }},
      {"length", [](Parameters& p, double n, double) { p.length = n; }},
      {"length", [](Parameters& p, double, double i) { p.length = i; }},
      {"length", [](Parameters& p, double, double) { p.length = 1e-200; }},  // 1/L^2 overflows
      {"massPerLength", [](Parameters& p, double, double) { p.massPerLength = -1.0; }},
      {"massPerLength", [](Parameters& p, double n, double) { p.massPerLength = n; }},
      {"EA", [](Parameters& p, double, double) { p.EA = 0.0; }},
      {"EA", [](Parameters& p, double, double i) { p.EA = i; }},
      {"EI", [](Parameters& p, double, double) { p.EI = -1e-9; }},
      {"EI", [](Parameters& p, double n, double) { p.EI = n; }},
      {"referenceAxialStrain", [](Parameters& p, double n, double) { p.referenceAxialStrain = n; }},
      {"referenceAxialStrain", [](Parameters& p, double, double) { p.referenceAxialStrain = -1.0; }},
      {"referenceCurvature", [](Parameters& p, double, double i) { p.referenceCurvature = -i; }},
      {"axialDamping", [](Parameters& p, double, double) { p.axialDamping = -0.5; }},
      {"axialDamping", [](Parameters& p, double n, double) { p.axialDamping = n; }},
      {"bendingDamping", [](Parameters& p, double, double) { p.bendingDamping = -0.5; }},
      {"bendingDamping", [](Parameters& p, double, double i) { p.bendingDamping = i; }},
      {"gravity", [](Parameters& p, double n, double) { p.gravity(0) = n; }},
      {"gravity", [](Parameters& p, double, double i) { p.gravity(1) = i; }},
      {"axialRule", [](Parameters& p, double, double) { p.axialRule = static_cast<AxialRule>(7); }},
  };
  for (const Case& c : cases) {
    Parameters p = beltParameters(AxialRule::kC);
    c.apply(p, nan, inf);
    Element e;
    const beltsim::ParameterError error = e.setUp(p);
    MT_EXPECT(error.status == Status::kInvalidParameter);
    MT_EXPECT(std::strcmp(error.parameter, c.name) == 0);
    if (std::strcmp(error.parameter, c.name) != 0) {
      minitest::print("    expected ");
      minitest::print(c.name);
      minitest::print(", got ");
      minitest::print(error.parameter);
      minitest::print("\n");
    }
    MT_EXPECT(!e.isSetUp());
    Vector8 force;
    MT_EXPECT(e.internalForce(straightState(0.1), Vector8::Zero(), force) ==
              Status::kInvalidParameter);
  }
  // A valid set-up after a failed one works; a failed one after a valid one disables it.
  Element e;
  Parameters p = beltParameters(AxialRule::kB);
  MT_EXPECT(e.setUp(p).ok());
  MT_EXPECT(e.isSetUp());
  p.EA = -1.0;
  MT_EXPECT(!e.setUp(p).ok());
  MT_EXPECT(!e.isSetUp());
}

// Degenerate states (docs/model_differences.md §10.11 spirit, status.hpp): |r'| = 0 at an integration point is
// reported as kDegenerateState and NaN/Inf input as kNonFiniteValue; outputs are zeroed, never NaN.
MT_TEST(degenerate_and_non_finite_states_are_flagged) {
  for (int s = 0; s < 3; ++s) {
    Element e;
    MT_EXPECT(e.setUp(beltParameters(kRules[s])).ok());
    const Vector8 collapsed = Vector8::Zero();  // both nodes at the origin, zero slopes: r' = 0
    Vector8 force = Vector8::Constant(1.0);
    Matrix8 k = Matrix8::Constant(1.0), d = Matrix8::Constant(1.0);
    MT_EXPECT(e.internalForce(collapsed, Vector8::Zero(), force) == Status::kDegenerateState);
    MT_EXPECT(force.cwiseAbs().maxCoeff() == 0.0);
    MT_EXPECT(e.internalForceAndJacobian(collapsed, Vector8::Zero(), force, k, d) ==
              Status::kDegenerateState);
    MT_EXPECT(k.cwiseAbs().maxCoeff() == 0.0 && d.cwiseAbs().maxCoeff() == 0.0);
    Element::Section section;
    MT_EXPECT(e.section(collapsed, Vector8::Zero(), 0.05, section) == Status::kDegenerateState);
    MT_EXPECT(section.axialForce == 0.0);
    double energy = 1.0;
    MT_EXPECT(e.elasticEnergy(collapsed, energy) == Status::kDegenerateState);

    Vector8 q = straightState(0.1);
    q(6) = __builtin_nan("");
    MT_EXPECT(e.internalForce(q, Vector8::Zero(), force) == Status::kNonFiniteValue);
    MT_EXPECT(force.cwiseAbs().maxCoeff() == 0.0);
    Vector8 qDot = Vector8::Zero();
    qDot(3) = __builtin_inf();
    MT_EXPECT(e.internalForce(straightState(0.1), qDot, force) == Status::kNonFiniteValue);
    MT_EXPECT(e.internalForceAndJacobian(straightState(0.1), qDot, force, k, d) ==
              Status::kNonFiniteValue);
  }
  // Scheme c samples the axial term at the nodes, so a zero nodal slope is degenerate for it;
  // rule a (interior Gauss points only) still evaluates the same state.
  Vector8 q = straightState(0.1);
  q(2) = q(3) = 0.0;
  Vector8 force;
  Element ec, ea;
  MT_EXPECT(ec.setUp(beltParameters(AxialRule::kC)).ok());
  MT_EXPECT(ea.setUp(beltParameters(AxialRule::kA)).ok());
  MT_EXPECT(ec.internalForce(q, Vector8::Zero(), force) == Status::kDegenerateState);
  MT_EXPECT(ea.internalForce(q, Vector8::Zero(), force) == Status::kOk);
}

// ---------------------------------------------------------------------------------------------
// Cross-target bit records: forces, Jacobian entries and section outputs of a fixed state.
MT_TEST(fixed_state_prints_bits_for_the_cross_target_check) {
  Vector8 q, qDot;
  q << 0.01, -0.02, 0.93, 0.21, 0.105, 0.013, 0.97, -0.33;
  qDot << 0.3, -0.1, 0.05, 0.4, -0.25, 0.6, -0.7, 0.15;
  const char* forceNames[3][8] = {
      {"ancf_a_Q0", "ancf_a_Q1", "ancf_a_Q2", "ancf_a_Q3", "ancf_a_Q4", "ancf_a_Q5", "ancf_a_Q6", "ancf_a_Q7"},
      {"ancf_b_Q0", "ancf_b_Q1", "ancf_b_Q2", "ancf_b_Q3", "ancf_b_Q4", "ancf_b_Q5", "ancf_b_Q6", "ancf_b_Q7"},
      {"ancf_c_Q0", "ancf_c_Q1", "ancf_c_Q2", "ancf_c_Q3", "ancf_c_Q4", "ancf_c_Q5", "ancf_c_Q6", "ancf_c_Q7"}};
  const char* jacobianNames[3][4] = {{"ancf_a_K00", "ancf_a_K36", "ancf_a_D25", "ancf_a_Ksum"},
                                     {"ancf_b_K00", "ancf_b_K36", "ancf_b_D25", "ancf_b_Ksum"},
                                     {"ancf_c_K00", "ancf_c_K36", "ancf_c_D25", "ancf_c_Ksum"}};
  for (int s = 0; s < 3; ++s) {
    Parameters p = beltParameters(kRules[s]);
    p.referenceAxialStrain = -0.05;
    p.referenceCurvature = 1.5;
    p.axialDamping = 25.0;
    p.bendingDamping = 1e-4;
    Element e;
    MT_EXPECT(e.setUp(p).ok());
    Vector8 force;
    Matrix8 k, d;
    MT_EXPECT(e.internalForceAndJacobian(q, qDot, force, k, d) == Status::kOk);
    for (int i = 0; i < 8; ++i) printBits(forceNames[s][i], force(i));
    double sum = 0.0;
    for (int c = 0; c < 8; ++c)
      for (int r = 0; r < 8; ++r) sum += k(r, c);
    printBits(jacobianNames[s][0], k(0, 0));
    printBits(jacobianNames[s][1], k(3, 6));
    printBits(jacobianNames[s][2], d(2, 5));
    printBits(jacobianNames[s][3], sum);
    MT_EXPECT(absolute(force(0)) > 0.0);
  }
  Element e;
  Parameters p = beltParameters(AxialRule::kC);
  p.axialDamping = 25.0;
  MT_EXPECT(e.setUp(p).ok());
  Element::Section section;
  MT_EXPECT(e.section(q, qDot, 0.037, section) == Status::kOk);
  printBits("ancf_section_N", section.axialForce);
  printBits("ancf_section_K", section.curvature);
  printBits("ancf_section_M", section.bendingMoment);
  printBits("ancf_mass_11", e.massMatrix()(1, 1));
  printBits("ancf_gravity_3", e.gravityForce()(3));
}
