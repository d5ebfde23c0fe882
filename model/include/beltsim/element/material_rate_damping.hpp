// Axial strain-rate damping on the material rate, for an element whose mesh stands still while
// the belt's material flows through it at v (reference length per second; docs/model.md §2.10).
//
// The element (ancf_cable2d.hpp) damps the mesh rate eps_dot = t.r_dot'. A material point that
// moves along the mesh sees its strain change at eps_dot + v eps', with eps' = t.r'' the strain's
// gradient along the mesh; this header adds the second part to the internal force (LHS):
//   Q_v = sum_A w d_eps rho S'^T t,     rho = v (t.r''),
// over the points of the element's axial rule (weights w include L/2). Derivatives, with
// n = t^perp and P = n n^T / |r'| (= dt/dr'):
//   dQ_v/dv = sum_A w d_eps (t.r'') S'^T t,
//   dQ_v/dq = sum_A w d_eps [ S'^T t (drho/dq)^T + rho S'^T P S' ],
//   drho/dq = v (S'^T P r'' + S''^T t).
// Bending damping (d_K) on the material rate is not carried here: the Eulerian belt takes d_K = 0.
// Real-time rules: fixed size, no heap, loops bounded by the rule's point count.
#pragma once
#include <Eigen/Core>
#include <cmath>

#include "beltsim/core/status.hpp"
#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/quadrature.hpp"

namespace beltsim {

class MaterialRateDamping {
 public:
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;

  // length: the element's reference length [m]; axialDamping: d_eps [N s]; rule: the element's
  // axial rule (the same points as its axial force).
  ParameterError setUp(double length, double axialDamping, AxialRule rule) {
    ready_ = false;
    if (!isFinite(length) || !(length > 0.0)) return ParameterError::invalid("length");
    if (!isFinite(axialDamping) || !(axialDamping >= 0.0)) return ParameterError::invalid("axialDamping");
    if (!isValidAxialRule(rule)) return ParameterError::invalid("axialRule");
    damping_ = axialDamping;
    switch (rule) {
      case AxialRule::kA: cache(SchemeRules<AxialRule::kA>::axial(), length); break;
      case AxialRule::kB: cache(SchemeRules<AxialRule::kB>::axial(), length); break;
      case AxialRule::kC: cache(SchemeRules<AxialRule::kC>::axial(), length); break;
    }
    ready_ = true;
    return ParameterError::success();
  }

  // Q_v at (q, v); with byPosition and byTransportSpeed set, its derivatives too. On any status
  // but kOk every output is zero.
  Status evaluate(const Vector8& q, double v, Vector8& force, Matrix8* byPosition,
                  Vector8* byTransportSpeed) const {
    force.setZero();
    if (byPosition) byPosition->setZero();
    if (byTransportSpeed) byTransportSpeed->setZero();
    if (!ready_) return Status::kInvalidParameter;
    for (int i = 0; i < points_; ++i) {
      const double* ds = ds_[i];
      const double* dds = dds_[i];
      Eigen::Vector2d rp = Eigen::Vector2d::Zero(), rpp = Eigen::Vector2d::Zero();
      for (int j = 0; j < 4; ++j) {
        rp(0) += ds[j] * q(2 * j);
        rp(1) += ds[j] * q(2 * j + 1);
        rpp(0) += dds[j] * q(2 * j);
        rpp(1) += dds[j] * q(2 * j + 1);
      }
      const double g = rp.squaredNorm();
      if (!isFinite(g)) return fail(force, byPosition, byTransportSpeed, Status::kNonFiniteValue);
      if (!(g > 1e-12)) return fail(force, byPosition, byTransportSpeed, Status::kDegenerateState);
      const double length = std::sqrt(g);
      const double invLength = 1.0 / length;
      const Eigen::Vector2d t = rp * invLength;
      const Eigen::Vector2d n(-t(1), t(0));
      const double gradient = t.dot(rpp);  // eps' [1/m]
      const double rate = v * gradient;    // rho [1/s]
      const double c = weight_[i] * damping_;
      for (int j = 0; j < 4; ++j) {
        force(2 * j) += c * rate * ds[j] * t(0);
        force(2 * j + 1) += c * rate * ds[j] * t(1);
      }
      if (byTransportSpeed) {
        for (int j = 0; j < 4; ++j) {
          (*byTransportSpeed)(2 * j) += c * gradient * ds[j] * t(0);
          (*byTransportSpeed)(2 * j + 1) += c * gradient * ds[j] * t(1);
        }
      }
      if (byPosition) {
        const double nr = n.dot(rpp) * invLength;  // n.r'' / |r'|
        Vector8 st, drho;                          // S'^T t, drho/dq
        for (int j = 0; j < 4; ++j)
          for (int k = 0; k < 2; ++k) {
            st(2 * j + k) = ds[j] * t(k);
            drho(2 * j + k) = v * (ds[j] * n(k) * nr + dds[j] * t(k));
          }
        const Eigen::Matrix2d P = n * n.transpose() * invLength;
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b)
            for (int k = 0; k < 2; ++k)
              for (int m = 0; m < 2; ++m)
                (*byPosition)(2 * a + k, 2 * b + m) +=
                    c * (st(2 * a + k) * drho(2 * b + m) + rate * ds[a] * ds[b] * P(k, m));
      }
    }
    for (int j = 0; j < 8; ++j)
      if (!isFinite(force(j))) return fail(force, byPosition, byTransportSpeed, Status::kNonFiniteValue);
    return Status::kOk;
  }

 private:
  template <int N>
  void cache(const QuadratureRule<N>& rule, double length) {
    points_ = N;
    const double half = 0.5 * length;
    for (int i = 0; i < N; ++i) {
      const HermiteShape<double> h = HermiteShape<double>::at(half * (1.0 + rule.points[i]), length);
      for (int j = 0; j < 4; ++j) {
        ds_[i][j] = h.ds(j);
        dds_[i][j] = h.dds(j);
      }
      weight_[i] = half * rule.weights[i];
    }
  }
  static Status fail(Vector8& force, Matrix8* byPosition, Vector8* byTransportSpeed, Status s) {
    force.setZero();
    if (byPosition) byPosition->setZero();
    if (byTransportSpeed) byTransportSpeed->setZero();
    return s;
  }

  double ds_[kMaxAxialPoints][4] = {};
  double dds_[kMaxAxialPoints][4] = {};
  double weight_[kMaxAxialPoints] = {};
  int points_ = 0;
  double damping_ = 0.0;
  bool ready_ = false;
};

}  // namespace beltsim
