// A test system: a closed belt of Elements ANCF elements on an eulerian mesh, with one
// transport coordinate (docs/model_element.md §2.10), no pulleys. Optional frictionless circular support
// (a belt fully wrapped on a frictionless pulley): a radial penalty force k (R - d) per reference
// length wherever the centreline is inside the circle. It plugs into ReferenceStepper
// (system_interface.hpp) and gives the tests its matrices.
//
// Unknowns: node k's [r_x, r_y, r'_x, r'_y] at 4k..4k+3, the transport coordinate sigma at 4N.
// Held unknowns keep their value (identity rows, residual 0): the gauge of the mesh (one node's
// tangential position) and, for a ring without support, its rigid motions.
#pragma once
#include <Eigen/Dense>
#include <cmath>

#include "beltsim/element/ancf_cable2d.hpp"
#include "flow_through_inertia.hpp"
#include "beltsim/solver/fixed_lu.hpp"
#include "beltsim/stepping/system_interface.hpp"

namespace beltsim_test {

template <int Elements>
class FlowThroughLoop {
 public:
  static constexpr int kSize = 4 * Elements + 1;
  static constexpr int kTransport = 4 * Elements;
  using Vector = Eigen::Matrix<double, kSize, 1>;
  using Matrix = Eigen::Matrix<double, kSize, kSize>;
  using Element = beltsim::AncfCable2D<double>;
  using Vector8 = Element::Vector8;
  using Matrix8 = Element::Matrix8;

  struct Support {
    bool active = false;
    double centreX = 0.0, centreY = 0.0;
    double radius = 0.0;     // R [m]
    double stiffness = 0.0;  // k per reference length [N/m^2]
  };

  bool setUp(const Element::Parameters& p, const Support& support) {
    support_ = support;
    for (int i = 0; i < kSize; ++i) held_[i] = false;
    return element_.setUp(p).ok() && flow_.setUp(p.length, p.massPerLength).ok();
  }
  void hold(int index) { held_[index] = true; }
  const Element& element() const { return element_; }
  const beltsim::FlowThroughInertia& flow() const { return flow_; }

  static Vector8 gather(const Vector& x, int e) {
    Vector8 out;
    const int b = 4 * ((e + 1) % Elements);
    for (int i = 0; i < 4; ++i) {
      out(i) = x(4 * e + i);
      out(4 + i) = x(b + i);
    }
    return out;
  }

  // r = inertia + internal force - support force, without held rows; with the derivatives by
  // acceleration, position and velocity when the pointers are set.
  beltsim::Status assemble(const Vector& q, const Vector& qDot, const Vector& qDDot, Vector& r,
                           Matrix* byAcceleration, Matrix* byPosition, Matrix* byVelocity) const {
    r.setZero();
    if (byAcceleration) byAcceleration->setZero();
    if (byPosition) byPosition->setZero();
    if (byVelocity) byVelocity->setZero();
    const double v = qDot(kTransport), vDot = qDDot(kTransport);
    for (int e = 0; e < Elements; ++e) {
      const Vector8 qe = gather(q, e), ve = gather(qDot, e), ae = gather(qDDot, e);
      beltsim::FlowThroughTerms flow;
      beltsim::Status s = flow_.evaluate(qe, ve, ae, v, vDot, flow);
      if (s != beltsim::Status::kOk) return s;
      Vector8 internal;
      Matrix8 kq, kv;
      s = element_.internalForceAndJacobian(qe, ve, internal, kq, kv);
      if (s != beltsim::Status::kOk) return s;
      Vector8 supportForce = Vector8::Zero();
      Matrix8 supportJacobian = Matrix8::Zero();
      if (support_.active) supportTerms(qe, supportForce, supportJacobian);
      int index[9];
      for (int i = 0; i < 9; ++i) index[i] = globalIndex(e, i);
      for (int i = 0; i < 9; ++i) {
        r(index[i]) += flow.force(i) + (i < 8 ? internal(i) - supportForce(i) : 0.0);
        for (int j = 0; j < 9; ++j) {
          const bool both = i < 8 && j < 8;
          if (byAcceleration) (*byAcceleration)(index[i], index[j]) += flow.byAcceleration(i, j);
          if (byPosition)
            (*byPosition)(index[i], index[j]) +=
                flow.byPosition(i, j) + (both ? kq(i, j) - supportJacobian(i, j) : 0.0);
          if (byVelocity)
            (*byVelocity)(index[i], index[j]) += flow.byVelocity(i, j) + (both ? kv(i, j) : 0.0);
        }
      }
    }
    return beltsim::Status::kOk;
  }

  // --- the stepper's interface (system_interface.hpp) ---
  beltsim::Status residual(const beltsim::IterationPoint<Vector>& p, Vector& r) const {
    const beltsim::Status s = assemble(*p.q, *p.v, *p.a, r, nullptr, nullptr, nullptr);
    for (int i = 0; i < kSize; ++i)
      if (held_[i]) r(i) = 0.0;
    return s;
  }
  beltsim::Status factorize(const beltsim::IterationPoint<Vector>& p, beltsim::MatrixUpdate, bool& built) {
    built = true;
    Vector r;
    Matrix a, k, d;
    const beltsim::Status s = assemble(*p.q, *p.v, *p.a, r, &a, &k, &d);
    if (s != beltsim::Status::kOk) return s;
    const beltsim::IntegratorCoefficients& c = *p.coefficients;
    Matrix m = c.massFactor * a + c.stiffnessFactor * k + c.dampingFactor * d;
    for (int i = 0; i < kSize; ++i)
      if (held_[i]) {
        m.row(i).setZero();
        m(i, i) = 1.0;
      }
    stiffnessFactor_ = c.stiffnessFactor;
    return lu_.compute(m);
  }
  beltsim::Status solve(const Vector& r, Vector& delta) const {
    delta = lu_.template solve<1>(stiffnessFactor_ * r);
    return beltsim::Status::kOk;
  }
  void beginStep() {}
  void rejectStep() {}
  beltsim::Status postNewtonStep(const beltsim::IterationPoint<Vector>&, double& error) {
    error = 0.0;
    return beltsim::Status::kOk;
  }

  // --- energies [J] ---
  double kineticEnergy(const Vector& q, const Vector& qDot) const {
    double sum = 0.0;
    for (int e = 0; e < Elements; ++e)
      sum += flow_.kineticEnergy(gather(q, e), gather(qDot, e), qDot(kTransport));
    return sum;
  }
  double potentialEnergy(const Vector& q) const {
    double sum = 0.0;
    for (int e = 0; e < Elements; ++e) {
      double u = 0.0;
      if (element_.elasticEnergy(gather(q, e), u) != beltsim::Status::kOk) return NAN;
      sum += u + (support_.active ? supportEnergy(gather(q, e)) : 0.0);
    }
    return sum;
  }

 private:
  static int globalIndex(int e, int local) {
    if (local == 8) return kTransport;
    return local < 4 ? 4 * e + local : 4 * ((e + 1) % Elements) + local - 4;
  }

  // Penalty support by 5-point Gauss-Legendre over the element: force density f = k (R - d) n
  // (n outward from the centre) where d < R; potential k/2 (R - d)^2.
  template <typename Visit>
  void supportPoints(const Vector8& qe, Visit visit) const {
    const double length = element_.parameters().length;
    for (int i = 0; i < beltsim::kGaussLegendre5.kPoints; ++i) {
      const double x = 0.5 * length * (1.0 + beltsim::kGaussLegendre5.points[i]);
      const double w = 0.5 * length * beltsim::kGaussLegendre5.weights[i];
      const beltsim::HermiteShape<double> h = beltsim::HermiteShape<double>::at(x, length);
      const Eigen::Vector2d rel =
          beltsim::HermiteShape<double>::interpolate(h.s, qe) - Eigen::Vector2d(support_.centreX, support_.centreY);
      const double d = rel.norm();
      if (d >= support_.radius || d <= 0.0) continue;
      visit(h, w, rel, d);
    }
  }
  void supportTerms(const Vector8& qe, Vector8& force, Matrix8& jacobian) const {
    supportPoints(qe, [&](const beltsim::HermiteShape<double>& h, double w, const Eigen::Vector2d& rel, double d) {
      const Eigen::Vector2d n = rel / d;
      const double depth = support_.radius - d;
      const Eigen::Matrix<double, 2, 8> s = beltsim::HermiteShape<double>::expand(h.s);
      force += w * support_.stiffness * depth * (s.transpose() * n);
      // d f / d r = k (-n n^T + depth / d (I - n n^T))
      const Eigen::Matrix2d nn = n * n.transpose();
      const Eigen::Matrix2d df = support_.stiffness * (-nn + depth / d * (Eigen::Matrix2d::Identity() - nn));
      jacobian += w * s.transpose() * df * s;
    });
  }
  double supportEnergy(const Vector8& qe) const {
    double u = 0.0;
    supportPoints(qe, [&](const beltsim::HermiteShape<double>&, double w, const Eigen::Vector2d&, double d) {
      const double depth = support_.radius - d;
      u += w * 0.5 * support_.stiffness * depth * depth;
    });
    return u;
  }

  Element element_;
  beltsim::FlowThroughInertia flow_;
  Support support_;
  bool held_[kSize];
  beltsim::FixedLu<kSize> lu_;
  double stiffnessFactor_ = 0.0;
};

}  // namespace beltsim_test
