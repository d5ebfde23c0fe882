// Elastic energy of a planar ANCF cable element whose nodes stay on the mesh while the amount of
// material in it is an unknown: the element of the eulerian belt with nodal
// material coordinates (docs/model_element.md §2.11).
//
// The element spans the mesh parameter x in [0, L] with the usual cubic Hermite position r(x) = S q
// (docs/model_element.md §2.1-2.2). The material coordinate p (reference length) is linear along it between
// its nodes' values pA and pB, so the element holds the reference length pB - pA of material and
//   lambda = dp/dx = (pB - pA) / L      (the material stretch of the mesh, > 0).
// With r_p = r'/lambda the material derivative, the strain and curvature of the material are
//   e = |r'|/lambda - 1 - eps0,    K_p = K / lambda   (K = (r' x r'') / r'.r' as in §2.4)
// and the energy, integrated over the material (dp = lambda dx) with the element's axial rule A
// for the axial term and rule B for the bending term (§2.6):
//   U(q, lambda) = sum_A w lambda EA/2 e^2  +  sum_B w EI/2 K^2 / lambda.
// At lambda = 1 this is the element's own energy (reference curvature 0). Its derivatives, with
// N = EA e, l = |r'|, t = r'/l, n = t^perp and the element's eps_q = S'^T t, K_q, K_qq (§2.8):
//   dU/dq           = sum_A w N S'^T t + sum_B w (EI K / lambda) K_q
//   dU/dlambda      = sum_A w (EA e^2 / 2 - N l / lambda) - sum_B w EI K^2 / (2 lambda^2)
//   d2U/dq2         = sum_A w S'^T [EA/lambda t t^T + N/l n n^T] S' + sum_B w EI/lambda (K_q K_q^T + K K_qq)
//   d2U/dq dlambda  = -sum_A w EA l / lambda^2 S'^T t - sum_B w EI K / lambda^2 K_q
//   d2U/dlambda2    = sum_A w EA l^2 / lambda^3 + sum_B w EI K^2 / lambda^3.
// dU/dlambda is the force that moves material between neighbouring elements: in a static state
// without friction the material settles where it is equal in both, which is where their axial
// forces are equal (tests/host/test_eulerian_cable.cpp).
//
// This header holds the elastic part only; the strain-rate damping of §2.4 is not part of it.
// Real-time rules: fixed-size Eigen types, no heap, bounded loops, sqrt as the only libm call.
#pragma once
#include <Eigen/Core>
#include <cmath>

#include "beltsim/core/status.hpp"
#include "beltsim/element/ancf_cable2d.hpp"
#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/quadrature.hpp"

namespace beltsim {

class EulerianCable2D {
 public:
  using Parameters = AncfCable2DParameters<double>;
  using Vector2 = Eigen::Matrix<double, 2, 1>;
  using Matrix2 = Eigen::Matrix<double, 2, 2>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Vector9 = Eigen::Matrix<double, 9, 1>;
  using Matrix9 = Eigen::Matrix<double, 9, 9>;
  using Vector10 = Eigen::Matrix<double, 10, 1>;
  using Matrix10 = Eigen::Matrix<double, 10, 10>;
  static constexpr int kStretch = 8;  // index of lambda in the 9-vectors

  // The element's parameters (L is the mesh length); a reference curvature other than 0 is
  // refused: it would stay with the mesh, not with the material.
  ParameterError setUp(const Parameters& p) {
    ready_ = false;
    const ParameterError check = AncfCable2D<double>::validate(p);
    if (!check.ok()) return check;
    if (p.referenceCurvature != 0.0) return ParameterError::invalid("referenceCurvature");
    params_ = p;
    switch (p.axialRule) {
      case AxialRule::kA: cachePoints<AxialRule::kA>(); break;
      case AxialRule::kB: cachePoints<AxialRule::kB>(); break;
      case AxialRule::kC: cachePoints<AxialRule::kC>(); break;
    }
    ready_ = true;
    return ParameterError::success();
  }

  const Parameters& parameters() const { return params_; }
  // EA alone (an injected belt_stiffness fault, docs/injected_faults.md): nothing cached uses it.
  // Whether setAxialStiffness would take EA (N): finite and positive.
  static ParameterError checkAxialStiffness(double EA) {
    return isFinite(EA) && EA > 0.0 ? ParameterError::success() : ParameterError::invalid("EA");
  }
  ParameterError setAxialStiffness(double EA) {
    if (!checkAxialStiffness(EA).ok()) return ParameterError::invalid("EA");
    params_.EA = EA;
    return ParameterError::success();
  }
  double length() const { return params_.length; }

  // lambda of an element whose nodes carry the material coordinates pA, pB [m].
  double stretch(double pA, double pB) const { return (pB - pA) / params_.length; }

  // U(q, lambda) [J].
  Status elasticEnergy(const Vector8& q, double lambda, double& energy) const {
    Vector9 force;
    Matrix9* none = nullptr;
    return evaluate(q, lambda, &energy, force, none);
  }

  // [dU/dq; dU/dlambda] [N, N m; J].
  Status elasticForce(const Vector8& q, double lambda, Vector9& force) const {
    Matrix9* none = nullptr;
    return evaluate(q, lambda, nullptr, force, none);
  }

  // The force and its derivative by (q, lambda) (symmetric).
  Status elasticForceAndStiffness(const Vector8& q, double lambda, Vector9& force, Matrix9& stiffness) const {
    Matrix9* target = &stiffness;
    return evaluate(q, lambda, nullptr, force, target);
  }

  // The same on the nodal coordinates (q, pA, pB): lambda = (pB - pA)/L by the chain rule.
  // With stiffness == nullptr, the force only.
  Status elasticForceAndStiffness(const Vector8& q, double pA, double pB, Vector10& force,
                                  Matrix10* stiffness) const {
    Vector9 f;
    Matrix9 k;
    Matrix9* target = stiffness != nullptr ? &k : nullptr;
    const Status s = evaluate(q, stretch(pA, pB), nullptr, f, target);
    force.setZero();
    if (stiffness != nullptr) stiffness->setZero();
    if (s != Status::kOk) return s;
    const double byP[2] = {-1.0 / params_.length, 1.0 / params_.length};  // d lambda / d(pA, pB)
    force.head<8>() = f.head<8>();
    for (int a = 0; a < 2; ++a) force(8 + a) = f(kStretch) * byP[a];
    if (stiffness == nullptr) return Status::kOk;
    stiffness->topLeftCorner<8, 8>() = k.topLeftCorner<8, 8>();
    for (int a = 0; a < 2; ++a) {
      stiffness->block<8, 1>(0, 8 + a) = k.block<8, 1>(0, kStretch) * byP[a];
      stiffness->block<1, 8>(8 + a, 0) = k.block<1, 8>(kStretch, 0) * byP[a];
      for (int b = 0; b < 2; ++b) (*stiffness)(8 + a, 8 + b) = k(kStretch, kStretch) * byP[a] * byP[b];
    }
    return Status::kOk;
  }

 private:
  // S'^T a as an 8-vector (entries S'_j a_k at 2j + k).
  static Vector8 spread(const double* shape, const Vector2& a) {
    Vector8 out;
    for (int j = 0; j < 4; ++j) {
      out(2 * j) = shape[j] * a(0);
      out(2 * j + 1) = shape[j] * a(1);
    }
    return out;
  }

  // Adds w * (A^T C B) with A, B the 2x8 spreads of shapes a, b: sum over shape pairs of a_i b_j C.
  static void addShapeBlock(const double* a, const double* b, const Matrix2& c, Matrix9& k) {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) k.block<2, 2>(2 * i, 2 * j) += (a[i] * b[j]) * c;
  }

  // sum_j shape_j (q_{2j}, q_{2j+1}), each sum from 0 in the order j = 0..3.
  static Vector2 interpolate(const double* shape, const Vector8& q) {
    return Vector2(0.0 + shape[0] * q(0) + shape[1] * q(2) + shape[2] * q(4) + shape[3] * q(6),
                   0.0 + shape[0] * q(1) + shape[1] * q(3) + shape[2] * q(5) + shape[3] * q(7));
  }
  // force += S^T a: entries shape_j a_k at 2j + k.
  static void addSpread(const double* shape, const Vector2& a, Vector9& force) {
    for (int j = 0; j < 4; ++j) {
      force(2 * j) += shape[j] * a(0);
      force(2 * j + 1) += shape[j] * a(1);
    }
  }

  static Vector2 perp(const Vector2& a) { return Vector2(-a(1), a(0)); }

  Status evaluate(const Vector8& q, double lambda, double* energy, Vector9& force, Matrix9*& stiffness) const {
    force.setZero();
    if (stiffness != nullptr) stiffness->setZero();
    if (energy != nullptr) *energy = 0.0;
    if (!ready_) return Status::kInvalidParameter;
    if (!isFinite(lambda)) return Status::kNonFiniteValue;
    if (!(lambda > 0.0)) return Status::kDegenerateState;
    const double EA = params_.EA, EI = params_.EI;
    const double invLambda = 1.0 / lambda;
    double u = 0.0;
    // ---- axial term: rule A ----
    for (int i = 0; i < axialPoints_; ++i) {
      const double* ds = axialDs_[i];
      const Vector2 r1 = interpolate(ds, q);
      const double g = r1.squaredNorm();
      if (!(g > AncfCable2D<double>::kDegenerateSlopeSquared))
        return isFinite(g) ? Status::kDegenerateState : Status::kNonFiniteValue;
      const double l = std::sqrt(g);
      const Vector2 t = r1 / l;
      const double e = l * invLambda - 1.0 - params_.referenceAxialStrain;
      const double N = EA * e;
      const double w = axialWeight_[i];
      u += w * lambda * 0.5 * EA * e * e;
      addSpread(ds, (w * N) * t, force);
      force(kStretch) += w * (0.5 * EA * e * e - N * l * invLambda);
      if (stiffness != nullptr) {
        const Vector2 n = perp(t);
        const Matrix2 c = w * ((EA * invLambda) * t * t.transpose() + (N / l) * n * n.transpose());
        addShapeBlock(ds, ds, c, *stiffness);
        const Vector8 mixed = (-w * EA * l * invLambda * invLambda) * spread(ds, t);
        stiffness->block<8, 1>(0, kStretch) += mixed;
        (*stiffness)(kStretch, kStretch) += w * EA * g * invLambda * invLambda * invLambda;
      }
    }
    // ---- bending term: rule B ----
    for (int i = 0; i < bendingPoints_; ++i) {
      const double* ds = bendingDs_[i];
      const double* dds = bendingDds_[i];
      const Vector2 r1 = interpolate(ds, q);
      const Vector2 r2 = interpolate(dds, q);
      const double g = r1.squaredNorm();
      if (!(g > AncfCable2D<double>::kDegenerateSlopeSquared))
        return isFinite(g) ? Status::kDegenerateState : Status::kNonFiniteValue;
      const double invG = 1.0 / g;
      const double K = (r1(0) * r2(1) - r1(1) * r2(0)) * invG;
      // K_q = S'^T alpha + S''^T beta (docs/model_element.md §2.8).
      const Vector2 beta = invG * perp(r1);
      const Vector2 alpha = invG * (Vector2(r2(1), -r2(0)) - 2.0 * K * r1);
      const Vector8 kq = spread(ds, alpha) + spread(dds, beta);
      const double w = bendingWeight_[i];
      u += w * 0.5 * EI * K * K * invLambda;
      force.head<8>() += (w * EI * K * invLambda) * kq;
      force(kStretch) -= w * 0.5 * EI * K * K * invLambda * invLambda;
      if (stiffness != nullptr) {
        const double m = w * EI * invLambda;
        stiffness->topLeftCorner<8, 8>() += m * kq * kq.transpose();
        // K K_qq with A11 = -(2/g)(r' alpha^T + alpha r'^T + K I), A12 = -R/g - 2 r' r'^perp^T / g^2,
        // A21 = A12^T (R a = a^perp).
        Matrix2 rot;
        rot << 0.0, -1.0, 1.0, 0.0;
        const Matrix2 a11 = -2.0 * invG * (r1 * alpha.transpose() + alpha * r1.transpose() + K * Matrix2::Identity());
        const Matrix2 a12 = -invG * rot - 2.0 * invG * invG * r1 * perp(r1).transpose();
        const double mk = m * K;
        addShapeBlock(ds, ds, mk * a11, *stiffness);
        addShapeBlock(ds, dds, mk * a12, *stiffness);
        addShapeBlock(dds, ds, mk * Matrix2(a12.transpose()), *stiffness);
        stiffness->block<8, 1>(0, kStretch) += (-w * EI * K * invLambda * invLambda) * kq;
        (*stiffness)(kStretch, kStretch) += w * EI * K * K * invLambda * invLambda * invLambda;
      }
    }
    if (stiffness != nullptr) stiffness->block<1, 8>(kStretch, 0) = stiffness->block<8, 1>(0, kStretch).transpose();
    for (int i = 0; i < 9; ++i)
      if (!isFinite(force(i))) return Status::kNonFiniteValue;
    if (energy != nullptr) *energy = u;
    return Status::kOk;
  }

  template <AxialRule S>
  void cachePoints() {
    const auto& axial = SchemeRules<S>::axial();
    const auto& bending = SchemeRules<S>::bending();
    const double half = 0.5 * params_.length;
    axialPoints_ = axial.kPoints;
    bendingPoints_ = bending.kPoints;
    for (int i = 0; i < axial.kPoints; ++i) {
      const HermiteShape<double> h = HermiteShape<double>::at(half * (1.0 + axial.points[i]), params_.length);
      for (int j = 0; j < 4; ++j) axialDs_[i][j] = h.ds(j);
      axialWeight_[i] = half * axial.weights[i];
    }
    for (int i = 0; i < bending.kPoints; ++i) {
      const HermiteShape<double> h = HermiteShape<double>::at(half * (1.0 + bending.points[i]), params_.length);
      for (int j = 0; j < 4; ++j) {
        bendingDs_[i][j] = h.ds(j);
        bendingDds_[i][j] = h.dds(j);
      }
      bendingWeight_[i] = half * bending.weights[i];
    }
  }

  Parameters params_{};
  int axialPoints_ = 0, bendingPoints_ = 0;
  double axialDs_[kMaxAxialPoints][4] = {};
  double axialWeight_[kMaxAxialPoints] = {};
  double bendingDs_[kMaxBendingPoints][4] = {};
  double bendingDds_[kMaxBendingPoints][4] = {};
  double bendingWeight_[kMaxBendingPoints] = {};
  bool ready_ = false;
};

}  // namespace beltsim
