// Planar ANCF cable element: cubic Hermite, Bernoulli-Euler, large deformation, axial and bending
// elasticity, strain-rate damping and a reference (pre-)strain (docs/model_element.md §2, paper [P] Sect. 2.1).
//
// Coordinates (docs/model_element.md §2.1): q = [rA_x, rA_y, r'A_x, r'A_y, rB_x, rB_y, r'B_x, r'B_y], absolute
// (reference + displacement), positions in m, slopes dimensionless; qDot in m/s and 1/s.
//
// Strains (docs/model_element.md §2.4, seed eqs. 4, 6-8), with f_ref = 0 (the stress-free shape is straight):
//   eps = |r'| - 1,            N   = EA (eps - eps0) + d_eps eps_dot      (axial force, N)
//   K   = (r' x r'') / r'.r',  M_b = EI (K - K0)     + d_K   K_dot        (bending moment, N m)
// With eps0 = -0.05 and eps = 0 the force is N = +0.05 EA: tension.
//
// Internal force (docs/model_element.md §2.5, seed eq. 5), LHS convention of docs/model_element.md §0.2
// (M qDDot + Q_int(q, qDot) = Q_ext):
//   Q_int = L/2 sum_{a in A} w_a N eps_q  +  L/2 sum_{b in B} w_b M_b K_q
// with the rule pair A/B of the selected AxialRule (docs/model_element.md §2.6).
//
// Jacobian (docs/model_element.md §2.8), derived by hand; with t = r'/|r'|, n = t^perp, g = r'.r', f = r' x r'':
//   eps_q = S'^T t,  K_q = S'^T alpha + S''^T beta,  beta = r'^perp / g,
//   alpha = dK/dr' = (df/dr' - 2 K r') / g = ((r''_y, -r''_x) - 2 K r') / g.
// Axial point: dQ/dq += w L/2 (S'^T S') (x) [EA t t^T + d_eps (n.r'_dot)/|r'| t n^T + N/|r'| n n^T]
//              dQ/dqDot += w L/2 d_eps (S'^T S') (x) t t^T
// Bending point: dQ/dq += w L/2 [K_q (EI K_q + d_K K_dot_q)^T + M_b K_qq]
//                dQ/dqDot += w L/2 d_K K_q K_q^T
//   K_qq = S'^T A11 S' + S'^T A12 S'' + S''^T A21 S', with
//     A11 = dalpha/dr'  = -(2/g) (r' alpha^T + alpha r'^T + K I)
//     A12 = dalpha/dr'' = -R/g - 2 r' r'^perp^T / g^2,   R = [0 -1; 1 0] (R a = a^perp)
//     A21 = dbeta/dr'   = A12^T,                         dbeta/dr'' = 0
//   K_dot = alpha.r'_dot + beta.r''_dot  and
//   K_dot_q = S'^T (A11 r'_dot + A12 r''_dot) + S''^T (A21 r'_dot).
// "S'^T a" above means the 8-vector with entries S'_j a_k at 2j+k.
//
// Real-time rules: fixed-size Eigen types, no heap, no exceptions, loops bounded by compile-time
// constants, no libm except sqrt (bit-identical results on x86-64, aarch64 and Cortex-M7).
// The element object holds only parameters and per-integration-point caches; it is stateless in
// q, so one object can serve every element of a belt with equal parameters.
#pragma once
#include <Eigen/Core>
#include <cmath>

#include "beltsim/element/hermite_shape.hpp"
#include "beltsim/element/quadrature.hpp"
#include "beltsim/core/status.hpp"

namespace beltsim {

template <typename Scalar>
struct AncfCable2DParameters {
  Scalar length = Scalar(0);                // L, reference (parameter) length of the element [m]
  Scalar massPerLength = Scalar(0);         // rho A [kg/m]
  Scalar EA = Scalar(0);                    // axial stiffness [N]
  Scalar EI = Scalar(0);                    // bending stiffness [N m^2]
  Scalar referenceAxialStrain = Scalar(0);  // eps0 [-]; -0.05: stress-free length 0.95 L
  Scalar referenceCurvature = Scalar(0);    // K0 [1/m]
  Scalar axialDamping = Scalar(0);          // d_eps, N += d_eps eps_dot [N s]
  Scalar bendingDamping = Scalar(0);        // d_K, M_b += d_K K_dot [N m^2 s]
  Eigen::Matrix<Scalar, 2, 1> gravity =
      Eigen::Matrix<Scalar, 2, 1>::Zero();  // distributed mass-proportional load [m/s^2]
  // false: the gravity load's consistent nodal forces (docs/model_element.md §2.7, with the end moments
  // +-rho A g L^2 / 12 on the slopes); true: lumped, rho A g L / 2 on each node's position.
  bool lumpedGravity = false;
  AxialRule axialRule = kDefaultAxialRule;
};

// Everything the element reports at a local coordinate x in [0, L] (docs/model_element.md §2.9).
template <typename Scalar>
struct AncfCable2DSection {
  Eigen::Matrix<Scalar, 2, 1> position;  // r(x) [m]
  Eigen::Matrix<Scalar, 2, 1> slope;     // r'(x) [-]
  Eigen::Matrix<Scalar, 2, 1> velocity;  // r_dot(x) [m/s]
  Scalar axialStrain;                    // eps = |r'| - 1 [-]
  Scalar axialStrainRate;                // eps_dot [1/s]
  Scalar axialForce;                     // N = EA (eps - eps0) + d_eps eps_dot [N] ("ForceLocal")
  Scalar curvature;                      // K [1/m]
  Scalar curvatureRate;                  // K_dot [1/(m s)]
  Scalar bendingMoment;                  // M_b = EI (K - K0) + d_K K_dot [N m]
};

template <typename Scalar>
class AncfCable2D {
 public:
  using Parameters = AncfCable2DParameters<Scalar>;
  using Section = AncfCable2DSection<Scalar>;
  using Vector2 = Eigen::Matrix<Scalar, 2, 1>;
  using Vector8 = Eigen::Matrix<Scalar, 8, 1>;
  using Matrix8 = Eigen::Matrix<Scalar, 8, 8>;

  // |r'|^2 at or below this value (|r'| <= 1e-6, a 99.9999 % compression) is a degenerate state:
  // eps_q, K and their derivatives are singular at r' = 0.
  static constexpr double kDegenerateSlopeSquared = 1e-12;

  // Checks the parameters; the error names the first offending one. Nothing is changed.
  static ParameterError validate(const Parameters& p) {
    if (!isFinite(p.length) || !(p.length > Scalar(0))) return ParameterError::invalid("length");
    if (!isFinite(p.massPerLength) || !(p.massPerLength >= Scalar(0)))
      return ParameterError::invalid("massPerLength");
    if (!isFinite(p.EA) || !(p.EA > Scalar(0))) return ParameterError::invalid("EA");
    if (!isFinite(p.EI) || !(p.EI >= Scalar(0))) return ParameterError::invalid("EI");
    // eps0 <= -1 would mean a stress-free length <= 0.
    if (!isFinite(p.referenceAxialStrain) || !(p.referenceAxialStrain > Scalar(-1)))
      return ParameterError::invalid("referenceAxialStrain");
    if (!isFinite(p.referenceCurvature)) return ParameterError::invalid("referenceCurvature");
    if (!isFinite(p.axialDamping) || !(p.axialDamping >= Scalar(0)))
      return ParameterError::invalid("axialDamping");
    if (!isFinite(p.bendingDamping) || !(p.bendingDamping >= Scalar(0)))
      return ParameterError::invalid("bendingDamping");
    if (!isFinite(p.gravity(0)) || !isFinite(p.gravity(1))) return ParameterError::invalid("gravity");
    if (!isValidAxialRule(p.axialRule)) return ParameterError::invalid("axialRule");
    return ParameterError::success();
  }

  // Validates and stores the parameters, computes the constant mass matrix, the gravity force
  // and the shape functions at the integration points. On error the element is left unusable
  // (every evaluation returns Status::kInvalidParameter) until a successful setUp.
  ParameterError setUp(const Parameters& p) {
    ready_ = false;
    const ParameterError check = validate(p);
    if (!check.ok()) return check;
    params_ = p;
    switch (p.axialRule) {
      case AxialRule::kA: cacheRules<AxialRule::kA>(); break;
      case AxialRule::kB: cacheRules<AxialRule::kB>(); break;
      case AxialRule::kC: cacheRules<AxialRule::kC>(); break;
    }
    computeMassMatrix();
    computeGravityForce();
    // A length so small or large that L^2, L^3 or 1/L^2 leave the double range.
    if (!cachesFinite()) return ParameterError::invalid("length");
    ready_ = true;
    return ParameterError::success();
  }

  bool isSetUp() const { return ready_; }
  const Parameters& parameters() const { return params_; }
  // EA alone (an injected belt_stiffness fault, docs/injected_faults.md): nothing cached uses it.
  // Whether setAxialStiffness would take EA (N): finite and positive.
  static ParameterError checkAxialStiffness(Scalar EA) {
    return isFinite(EA) && EA > Scalar(0) ? ParameterError::success() : ParameterError::invalid("EA");
  }
  ParameterError setAxialStiffness(Scalar EA) {
    if (!checkAxialStiffness(EA).ok()) return ParameterError::invalid("EA");
    params_.EA = EA;
    return ParameterError::success();
  }

  // Constant consistent mass matrix (docs/model_element.md §2.3): rho A L / 420 [156 22L 54 -13L; ...] (x) I2 [kg,
  // kg m, kg m^2 by block]. Valid after setUp.
  const Matrix8& massMatrix() const { return mass_; }

  // Generalized gravity force (docs/model_element.md §2.7), right-hand side (physical) sign:
  // rho A [L/2 g; L^2/12 g; L/2 g; -L^2/12 g] [N, N m]. Valid after setUp.
  const Vector8& gravityForce() const { return gravityForce_; }

  // Internal (elastic + viscous) force Q_int(q, qDot), LHS sign [N, N m].
  // On any status but kOk, Q is set to zero and must not be used.
  Status internalForce(const Vector8& q, const Vector8& qDot, Vector8& Q) const {
    return dispatch<false>(q, qDot, Q, nullptr, nullptr);
  }

  // Q_int and its exact Jacobians in one pass: stiffness = dQ/dq [N/m, N, N m],
  // damping = dQ/dqDot [N s/m, ...]. On error all outputs are zero.
  Status internalForceAndJacobian(const Vector8& q, const Vector8& qDot, Vector8& Q,
                                  Matrix8& stiffness, Matrix8& damping) const {
    return dispatch<true>(q, qDot, Q, &stiffness, &damping, Scalar(1), Scalar(1));
  }

  // Q_int and the combined Newton matrix  cq dQ/dq + cv dQ/dqDot  (docs/model_element.md §2.8), assembled in one
  // matrix: the factors scale each integration point's 2x2 blocks before they are spread over
  // the 8x8 matrix. Note that the mass term (c_a M) is not included. On error all outputs are zero.
  Status internalForceAndCombinedJacobian(const Vector8& q, const Vector8& qDot, Scalar cq,
                                          Scalar cv, Vector8& Q, Matrix8& jacobian) const {
    return dispatch<true>(q, qDot, Q, &jacobian, nullptr, cq, cv);
  }

  // The viscous part of Q_int alone, the strain-rate damping N = d_eps eps_dot, M_b = d_K K_dot, and
  // its Jacobians dQ_v/dq and dQ_v/dqDot (Q_int with EA = EI = 0): for the eulerian element, whose
  // elastic force comes from its own strain (eulerian_cable2d.hpp). With d_K = 0 the bending points
  // are skipped (their terms are all zero). On error all outputs are zero.
  Status viscousForce(const Vector8& q, const Vector8& qDot, Vector8& Q) const {
    return dispatch<false, true>(q, qDot, Q, nullptr, nullptr);
  }
  Status viscousForceAndJacobian(const Vector8& q, const Vector8& qDot, Vector8& Q, Matrix8& stiffness,
                                 Matrix8& damping) const {
    return dispatch<true, true>(q, qDot, Q, &stiffness, &damping, Scalar(1), Scalar(1));
  }

  // Elastic strain energy with the same quadrature as Q_int, so that Q_int(q, 0) = dU/dq [J]:
  //   U = L/2 sum_A w EA/2 (eps - eps0)^2 + L/2 sum_B w EI/2 (K - K0)^2.
  Status elasticEnergy(const Vector8& q, Scalar& energy) const {
    energy = Scalar(0);
    if (!ready_) return Status::kInvalidParameter;
    switch (params_.axialRule) {
      case AxialRule::kA:
        return energyImpl<axialPointCount(AxialRule::kA),
                          bendingPointCount(AxialRule::kA)>(q, energy);
      case AxialRule::kB:
        return energyImpl<axialPointCount(AxialRule::kB),
                          bendingPointCount(AxialRule::kB)>(q, energy);
      case AxialRule::kC:
        return energyImpl<axialPointCount(AxialRule::kC),
                          bendingPointCount(AxialRule::kC)>(q, energy);
    }
    return Status::kInvalidParameter;
  }

  // Kinetic energy 1/2 qDot^T M qDot [J].
  Status kineticEnergy(const Vector8& qDot, Scalar& energy) const {
    energy = Scalar(0);
    if (!ready_) return Status::kInvalidParameter;
    Scalar sum = Scalar(0);
    for (int r = 0; r < 8; ++r) {
      Scalar row = Scalar(0);
      for (int c = 0; c < 8; ++c) row += mass_(r, c) * qDot(c);
      sum += qDot(r) * row;
    }
    if (!isFinite(sum)) return Status::kNonFiniteValue;
    energy = Scalar(0.5) * sum;
    return Status::kOk;
  }

  // Centreline position r(x) [m], x in [0, L] [m].
  Status position(const Vector8& q, Scalar x, Vector2& r) const {
    return interpolate(q, x, 0, r);
  }
  // Slope r'(x) [-].
  Status slope(const Vector8& q, Scalar x, Vector2& rPrime) const {
    return interpolate(q, x, 1, rPrime);
  }
  // Velocity r_dot(x) = S(x) qDot [m/s].
  Status velocity(const Vector8& qDot, Scalar x, Vector2& v) const {
    return interpolate(qDot, x, 0, v);
  }

  // All section quantities at x in [0, L] (docs/model_element.md §2.9), from the current state; not restricted to
  // integration points. kDegenerateState if |r'(x)| is ~0, kNonFiniteValue for NaN/Inf,
  // kInvalidParameter if not set up or x is outside [0, L]. On error, out is zeroed.
  Status section(const Vector8& q, const Vector8& qDot, Scalar x, Section& out) const {
    out.position.setZero();
    out.slope.setZero();
    out.velocity.setZero();
    out.axialStrain = out.axialStrainRate = out.axialForce = Scalar(0);
    out.curvature = out.curvatureRate = out.bendingMoment = Scalar(0);
    if (!ready_ || !(x >= Scalar(0)) || !(x <= params_.length)) return Status::kInvalidParameter;
    const HermiteShape<Scalar> h = HermiteShape<Scalar>::at(x, params_.length);
    const Vector2 r = HermiteShape<Scalar>::interpolate(h.s, q);
    const Vector2 rp = HermiteShape<Scalar>::interpolate(h.ds, q);
    const Vector2 rpp = HermiteShape<Scalar>::interpolate(h.dds, q);
    const Vector2 v = HermiteShape<Scalar>::interpolate(h.s, qDot);
    const Vector2 vp = HermiteShape<Scalar>::interpolate(h.ds, qDot);
    const Vector2 vpp = HermiteShape<Scalar>::interpolate(h.dds, qDot);
    Axial ax;
    Status s = axialAt(rp(0), rp(1), vp(0), vp(1), ax);
    if (s != Status::kOk) return s;
    Bending be;
    s = bendingAt(rp(0), rp(1), rpp(0), rpp(1), vp(0), vp(1), vpp(0), vpp(1), be);
    if (s != Status::kOk) return s;
    const Scalar all[] = {r(0), r(1), v(0), v(1), ax.eps, ax.epsDot, ax.N, be.K, be.KDot, be.M};
    Scalar probe = Scalar(0);
    for (int i = 0; i < 10; ++i) probe += all[i] - all[i];
    if (!(probe == Scalar(0))) return Status::kNonFiniteValue;
    out.position = r;
    out.slope = rp;
    out.velocity = v;
    out.axialStrain = ax.eps;
    out.axialStrainRate = ax.epsDot;
    out.axialForce = ax.N;
    out.curvature = be.K;
    out.curvatureRate = be.KDot;
    out.bendingMoment = be.M;
    return Status::kOk;
  }

 private:
  // Axial quantities at one point (docs/model_element.md §2.4).
  struct Axial {
    Scalar l;       // |r'|
    Scalar invL;    // 1 / |r'|
    Scalar tx, ty;  // t = r'/|r'|
    Scalar eps;     // |r'| - 1
    Scalar epsDot;  // t . r'_dot
    Scalar N;       // axial force with damping
  };

  // Bending quantities at one point (docs/model_element.md §2.4); K_q = S'^T alpha + S''^T beta.
  struct Bending {
    Scalar g;                // r'.r'
    Scalar invG;             // 1 / g
    Scalar K;                // curvature
    Scalar ax, ay, bx, by;   // alpha, beta
    Scalar KDot;             // alpha.r'_dot + beta.r''_dot
    Scalar M;                // bending moment with damping
  };

  static Status classifySlope(Scalar g) {
    if (g > Scalar(kDegenerateSlopeSquared)) return isFinite(g) ? Status::kOk : Status::kNonFiniteValue;
    return isFinite(g) ? Status::kDegenerateState : Status::kNonFiniteValue;
  }

  template <bool kViscousOnly = false>
  Status axialAt(Scalar rx, Scalar ry, Scalar vx, Scalar vy, Axial& a) const {
    const Scalar g = rx * rx + ry * ry;
    const Status s = classifySlope(g);
    if (s != Status::kOk) return s;
    a.l = std::sqrt(g);
    a.invL = Scalar(1) / a.l;  // one division per point (divisions are slow on Cortex-M7)
    a.tx = rx * a.invL;
    a.ty = ry * a.invL;
    a.eps = a.l - Scalar(1);
    a.epsDot = a.tx * vx + a.ty * vy;
    if constexpr (kViscousOnly)
      a.N = params_.axialDamping * a.epsDot;
    else
      a.N = params_.EA * (a.eps - params_.referenceAxialStrain) + params_.axialDamping * a.epsDot;
    return Status::kOk;
  }

  template <bool kViscousOnly = false>
  Status bendingAt(Scalar rx, Scalar ry, Scalar rrx, Scalar rry, Scalar vx, Scalar vy, Scalar vvx,
                   Scalar vvy, Bending& b) const {
    b.g = rx * rx + ry * ry;
    const Status s = classifySlope(b.g);
    if (s != Status::kOk) return s;
    const Scalar f = rx * rry - ry * rrx;  // r' x r''
    b.invG = Scalar(1) / b.g;  // one division per point (divisions are slow on Cortex-M7)
    b.K = f * b.invG;
    // beta = dK/dr'' = r'^perp / g;  alpha = dK/dr' = ((r''_y, -r''_x) - 2 K r') / g.
    b.bx = -ry * b.invG;
    b.by = rx * b.invG;
    b.ax = (rry - Scalar(2) * b.K * rx) * b.invG;
    b.ay = (-rrx - Scalar(2) * b.K * ry) * b.invG;
    b.KDot = (b.ax * vx + b.ay * vy) + (b.bx * vvx + b.by * vvy);
    if constexpr (kViscousOnly)
      b.M = params_.bendingDamping * b.KDot;
    else
      b.M = params_.EI * (b.K - params_.referenceCurvature) + params_.bendingDamping * b.KDot;
    return Status::kOk;
  }

  template <AxialRule S>
  void cacheRules() {
    const auto& axial = SchemeRules<S>::axial();
    const auto& bending = SchemeRules<S>::bending();
    const Scalar halfLength = Scalar(0.5) * params_.length;
    for (int i = 0; i < kMaxAxialPoints; ++i) {
      for (int j = 0; j < 4; ++j) axialDs_[i][j] = Scalar(0);
      axialWeight_[i] = Scalar(0);
    }
    for (int i = 0; i < kMaxBendingPoints; ++i) {
      for (int j = 0; j < 4; ++j) bendingDs_[i][j] = bendingDds_[i][j] = Scalar(0);
      bendingWeight_[i] = Scalar(0);
    }
    for (int i = 0; i < axial.kPoints; ++i) {
      const Scalar x = halfLength * (Scalar(1) + Scalar(axial.points[i]));
      const HermiteShape<Scalar> h = HermiteShape<Scalar>::at(x, params_.length);
      for (int j = 0; j < 4; ++j) axialDs_[i][j] = h.ds(j);
      axialWeight_[i] = halfLength * Scalar(axial.weights[i]);
    }
    for (int i = 0; i < bending.kPoints; ++i) {
      const Scalar x = halfLength * (Scalar(1) + Scalar(bending.points[i]));
      const HermiteShape<Scalar> h = HermiteShape<Scalar>::at(x, params_.length);
      for (int j = 0; j < 4; ++j) {
        bendingDs_[i][j] = h.ds(j);
        bendingDds_[i][j] = h.dds(j);
      }
      bendingWeight_[i] = halfLength * Scalar(bending.weights[i]);
    }
  }

  void computeMassMatrix() {
    const Scalar L = params_.length;
    const Scalar c = params_.massPerLength * L / Scalar(420);
    const Scalar m4[4][4] = {{Scalar(156), Scalar(22) * L, Scalar(54), Scalar(-13) * L},
                             {Scalar(22) * L, Scalar(4) * L * L, Scalar(13) * L, Scalar(-3) * L * L},
                             {Scalar(54), Scalar(13) * L, Scalar(156), Scalar(-22) * L},
                             {Scalar(-13) * L, Scalar(-3) * L * L, Scalar(-22) * L, Scalar(4) * L * L}};
    mass_.setZero();
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        mass_(2 * i, 2 * j) = c * m4[i][j];
        mass_(2 * i + 1, 2 * j + 1) = c * m4[i][j];
      }
  }

  void computeGravityForce() {
    const Scalar L = params_.length;
    const Scalar moment = params_.lumpedGravity ? Scalar(0) : params_.massPerLength * L * L / Scalar(12);
    const Scalar c[4] = {params_.massPerLength * L / Scalar(2), moment, params_.massPerLength * L / Scalar(2),
                         -moment};
    for (int j = 0; j < 4; ++j) {
      gravityForce_(2 * j) = c[j] * params_.gravity(0);
      gravityForce_(2 * j + 1) = c[j] * params_.gravity(1);
    }
  }

  bool cachesFinite() const {
    Scalar probe = Scalar(0);
    for (int i = 0; i < kMaxAxialPoints; ++i) {
      probe += axialWeight_[i] - axialWeight_[i];
      for (int j = 0; j < 4; ++j) probe += axialDs_[i][j] - axialDs_[i][j];
    }
    for (int i = 0; i < kMaxBendingPoints; ++i) {
      probe += bendingWeight_[i] - bendingWeight_[i];
      for (int j = 0; j < 4; ++j)
        probe += (bendingDs_[i][j] - bendingDs_[i][j]) + (bendingDds_[i][j] - bendingDds_[i][j]);
    }
    return probe == Scalar(0) && allFinite(mass_) && allFinite(gravityForce_);
  }

  template <typename Derived>
  static bool allFinite(const Eigen::MatrixBase<Derived>& m) {
    Scalar probe = Scalar(0);
    for (int c = 0; c < Derived::ColsAtCompileTime; ++c)
      for (int r = 0; r < Derived::RowsAtCompileTime; ++r) probe += m(r, c) - m(r, c);
    return probe == Scalar(0);
  }

  Status interpolate(const Vector8& q, Scalar x, int derivative, Vector2& out) const {
    out.setZero();
    if (!ready_ || !(x >= Scalar(0)) || !(x <= params_.length)) return Status::kInvalidParameter;
    const HermiteShape<Scalar> h = HermiteShape<Scalar>::at(x, params_.length);
    const Vector2 r = HermiteShape<Scalar>::interpolate(derivative == 0 ? h.s : h.ds, q);
    if (!isFinite(r(0)) || !isFinite(r(1))) return Status::kNonFiniteValue;
    out = r;
    return Status::kOk;
  }

  // damping == nullptr: stiffness receives cq dQ/dq + cv dQ/dqDot; otherwise stiffness receives
  // cq dQ/dq and damping cv dQ/dqDot (internalForceAndJacobian passes 1 and 1).
  template <bool kJacobian, bool kViscousOnly = false>
  Status dispatch(const Vector8& q, const Vector8& qDot, Vector8& Q, Matrix8* stiffness,
                  Matrix8* damping, Scalar cq = Scalar(1), Scalar cv = Scalar(1)) const {
    Status s = Status::kInvalidParameter;
    if (ready_) {
      switch (params_.axialRule) {
        case AxialRule::kA:
          s = evaluate<axialPointCount(AxialRule::kA),
                       bendingPointCount(AxialRule::kA), kJacobian, kViscousOnly>(q, qDot, Q, stiffness,
                                                                             damping, cq, cv);
          break;
        case AxialRule::kB:
          s = evaluate<axialPointCount(AxialRule::kB),
                       bendingPointCount(AxialRule::kB), kJacobian, kViscousOnly>(q, qDot, Q, stiffness,
                                                                             damping, cq, cv);
          break;
        case AxialRule::kC:
          s = evaluate<axialPointCount(AxialRule::kC),
                       bendingPointCount(AxialRule::kC), kJacobian, kViscousOnly>(q, qDot, Q, stiffness,
                                                                             damping, cq, cv);
          break;
      }
    }
    if (s != Status::kOk) {
      Q.setZero();
      if constexpr (kJacobian) {
        stiffness->setZero();
        if (damping != nullptr) damping->setZero();
      }
    }
    return s;
  }

  // One pass over the integration points. NA/NB: point counts of the axial/bending rules.
  // Jacobians: dQ/dq scaled by cq goes to *stiffness, dQ/dqDot scaled by cv to *damping, or to
  // *stiffness as well when damping is null (the combined Newton matrix).
  template <int NA, int NB, bool kJacobian, bool kViscousOnly = false>
  Status evaluate(const Vector8& q, const Vector8& qDot, Vector8& Q, Matrix8* stiffness,
                  Matrix8* damping, Scalar cq, Scalar cv) const {
    Scalar force[8] = {Scalar(0), Scalar(0), Scalar(0), Scalar(0),
                       Scalar(0), Scalar(0), Scalar(0), Scalar(0)};
    const bool combined = damping == nullptr;
    Matrix8* dampingTarget = combined ? stiffness : damping;
    if constexpr (kJacobian) {
      stiffness->setZero();
      if (!combined) damping->setZero();
    }
    const Scalar EA = kViscousOnly ? Scalar(0) : params_.EA;
    const Scalar EI = kViscousOnly ? Scalar(0) : params_.EI;
    const Scalar dEps = params_.axialDamping;
    const Scalar dK = params_.bendingDamping;
    const int bendingPoints = kViscousOnly && dK == Scalar(0) ? 0 : NB;  // M_b = 0 there

    // ---- axial term: rule A ----
    for (int i = 0; i < NA; ++i) {
      const Scalar* ds = axialDs_[i];
      Scalar rx = Scalar(0), ry = Scalar(0), vx = Scalar(0), vy = Scalar(0);
      for (int j = 0; j < 4; ++j) {
        rx += ds[j] * q(2 * j);
        ry += ds[j] * q(2 * j + 1);
        vx += ds[j] * qDot(2 * j);
        vy += ds[j] * qDot(2 * j + 1);
      }
      Axial a;
      const Status s = axialAt<kViscousOnly>(rx, ry, vx, vy, a);
      if (s != Status::kOk) return s;
      const Scalar w = axialWeight_[i];
      // Q += w N eps_q,  eps_q = S'^T t
      const Scalar cx = w * a.N * a.tx;
      const Scalar cy = w * a.N * a.ty;
      for (int j = 0; j < 4; ++j) {
        force[2 * j] += ds[j] * cx;
        force[2 * j + 1] += ds[j] * cy;
      }
      if constexpr (kJacobian) {
        // B = EA t t^T + d_eps (n.r'_dot)/|r'| t n^T + N/|r'| n n^T, n = (-t_y, t_x).
        const Scalar nx = -a.ty, ny = a.tx;
        const Scalar cTN = dEps * (nx * vx + ny * vy) * a.invL;
        const Scalar cNN = a.N * a.invL;
        const Scalar wk = w * cq;
        Scalar B[2][2] = {
            {wk * (EA * a.tx * a.tx + cTN * a.tx * nx + cNN * nx * nx),
             wk * (EA * a.tx * a.ty + cTN * a.tx * ny + cNN * nx * ny)},
            {wk * (EA * a.ty * a.tx + cTN * a.ty * nx + cNN * ny * nx),
             wk * (EA * a.ty * a.ty + cTN * a.ty * ny + cNN * ny * ny)}};
        const Scalar wd = w * dEps * cv;
        const Scalar Dm[2][2] = {{wd * a.tx * a.tx, wd * a.tx * a.ty},
                                 {wd * a.ty * a.tx, wd * a.ty * a.ty}};
        if (combined) {
          for (int k = 0; k < 2; ++k)
            for (int m = 0; m < 2; ++m) B[k][m] += Dm[k][m];
        }
        for (int bi = 0; bi < 4; ++bi)
          for (int bj = 0; bj < 4; ++bj) {
            const Scalar ss = ds[bi] * ds[bj];
            for (int k = 0; k < 2; ++k)
              for (int m = 0; m < 2; ++m) {
                (*stiffness)(2 * bi + k, 2 * bj + m) += ss * B[k][m];
                if (!combined) (*damping)(2 * bi + k, 2 * bj + m) += ss * Dm[k][m];
              }
          }
      }
    }

    // ---- bending term: rule B ----
    for (int i = 0; i < bendingPoints; ++i) {
      const Scalar* ds = bendingDs_[i];
      const Scalar* dds = bendingDds_[i];
      Scalar rx = Scalar(0), ry = Scalar(0), rrx = Scalar(0), rry = Scalar(0);
      Scalar vx = Scalar(0), vy = Scalar(0), vvx = Scalar(0), vvy = Scalar(0);
      for (int j = 0; j < 4; ++j) {
        rx += ds[j] * q(2 * j);
        ry += ds[j] * q(2 * j + 1);
        rrx += dds[j] * q(2 * j);
        rry += dds[j] * q(2 * j + 1);
        vx += ds[j] * qDot(2 * j);
        vy += ds[j] * qDot(2 * j + 1);
        vvx += dds[j] * qDot(2 * j);
        vvy += dds[j] * qDot(2 * j + 1);
      }
      Bending b;
      const Status s = bendingAt<kViscousOnly>(rx, ry, rrx, rry, vx, vy, vvx, vvy, b);
      if (s != Status::kOk) return s;
      const Scalar w = bendingWeight_[i];
      // Q += w M_b K_q,  K_q node j = ds_j alpha + dds_j beta
      const Scalar wM = w * b.M;
      const Scalar wMax = wM * b.ax, wMay = wM * b.ay, wMbx = wM * b.bx, wMby = wM * b.by;
      for (int j = 0; j < 4; ++j) {
        force[2 * j] += ds[j] * wMax + dds[j] * wMbx;
        force[2 * j + 1] += ds[j] * wMay + dds[j] * wMby;
      }
      if constexpr (kJacobian) {
        const Scalar invG = b.invG;
        const Scalar invG2 = invG * invG;
        // A11 = -(2/g)(r' alpha^T + alpha r'^T + K I)  (symmetric)
        const Scalar c2g = Scalar(-2) * invG;
        const Scalar A11xx = c2g * (Scalar(2) * rx * b.ax + b.K);
        const Scalar A11xy = c2g * (rx * b.ay + b.ax * ry);
        const Scalar A11yy = c2g * (Scalar(2) * ry * b.ay + b.K);
        // A12 = -R/g - 2 r' (r'^perp)^T / g^2, r'^perp = (-r'_y, r'_x), -R = [0 1; -1 0]
        const Scalar A12xx = Scalar(2) * rx * ry * invG2;
        const Scalar A12xy = invG - Scalar(2) * rx * rx * invG2;
        const Scalar A12yx = -invG + Scalar(2) * ry * ry * invG2;
        const Scalar A12yy = Scalar(-2) * ry * rx * invG2;
        // A21 = A12^T
        const Scalar A21xx = A12xx, A21xy = A12yx, A21yx = A12xy, A21yy = A12yy;
        // gamma1 = EI alpha + d_K (A11 r'_dot + A12 r''_dot), gamma2 = EI beta + d_K A21 r'_dot
        const Scalar g1x =
            EI * b.ax + dK * ((A11xx * vx + A11xy * vy) + (A12xx * vvx + A12xy * vvy));
        const Scalar g1y =
            EI * b.ay + dK * ((A11xy * vx + A11yy * vy) + (A12yx * vvx + A12yy * vvy));
        const Scalar g2x = EI * b.bx + dK * (A21xx * vx + A21xy * vy);
        const Scalar g2y = EI * b.by + dK * (A21yx * vx + A21yy * vy);
        const Scalar wdK = w * dK * cv;
        // Node quantities: k_i = ds_i alpha + dds_i beta; h_i = w (ds_i gamma1 + dds_i gamma2);
        // P_i = w M_b (ds_i A11 + dds_i A21); R_i = w M_b ds_i A12.
        Scalar kx[4], ky[4], hx[4], hy[4];
        for (int j = 0; j < 4; ++j) {
          kx[j] = ds[j] * b.ax + dds[j] * b.bx;
          ky[j] = ds[j] * b.ay + dds[j] * b.by;
          hx[j] = w * cq * (ds[j] * g1x + dds[j] * g2x);
          hy[j] = w * cq * (ds[j] * g1y + dds[j] * g2y);
        }
        const Scalar wMk = wM * cq;
        for (int bi = 0; bi < 4; ++bi) {
          const Scalar p1 = wMk * ds[bi], p2 = wMk * dds[bi];
          const Scalar Pxx = p1 * A11xx + p2 * A21xx, Pxy = p1 * A11xy + p2 * A21xy;
          const Scalar Pyx = p1 * A11xy + p2 * A21yx, Pyy = p1 * A11yy + p2 * A21yy;
          const Scalar Rxx = p1 * A12xx, Rxy = p1 * A12xy, Ryx = p1 * A12yx, Ryy = p1 * A12yy;
          const Scalar dkx = wdK * kx[bi], dky = wdK * ky[bi];
          for (int bj = 0; bj < 4; ++bj) {
            const int r0 = 2 * bi, c0 = 2 * bj;
            (*stiffness)(r0, c0) += kx[bi] * hx[bj] + (ds[bj] * Pxx + dds[bj] * Rxx);
            (*stiffness)(r0, c0 + 1) += kx[bi] * hy[bj] + (ds[bj] * Pxy + dds[bj] * Rxy);
            (*stiffness)(r0 + 1, c0) += ky[bi] * hx[bj] + (ds[bj] * Pyx + dds[bj] * Ryx);
            (*stiffness)(r0 + 1, c0 + 1) += ky[bi] * hy[bj] + (ds[bj] * Pyy + dds[bj] * Ryy);
            if (dK != Scalar(0)) {  // without bending damping these terms are all zero
              (*dampingTarget)(r0, c0) += dkx * kx[bj];
              (*dampingTarget)(r0, c0 + 1) += dkx * ky[bj];
              (*dampingTarget)(r0 + 1, c0) += dky * kx[bj];
              (*dampingTarget)(r0 + 1, c0 + 1) += dky * ky[bj];
            }
          }
        }
      }
    }

    Scalar probe = Scalar(0);
    for (int j = 0; j < 8; ++j) {
      Q(j) = force[j];
      probe += force[j] - force[j];
    }
    if (!(probe == Scalar(0))) return Status::kNonFiniteValue;
    if constexpr (kJacobian) {
      if (!(allFinite(*stiffness) && (combined || allFinite(*damping)))) return Status::kNonFiniteValue;
    }
    return Status::kOk;
  }

  template <int NA, int NB>
  Status energyImpl(const Vector8& q, Scalar& energy) const {
    Scalar axialSum = Scalar(0);
    for (int i = 0; i < NA; ++i) {
      const Scalar* ds = axialDs_[i];
      Scalar rx = Scalar(0), ry = Scalar(0);
      for (int j = 0; j < 4; ++j) {
        rx += ds[j] * q(2 * j);
        ry += ds[j] * q(2 * j + 1);
      }
      Axial a;
      const Status s = axialAt(rx, ry, Scalar(0), Scalar(0), a);
      if (s != Status::kOk) return s;
      const Scalar e = a.eps - params_.referenceAxialStrain;
      axialSum += axialWeight_[i] * e * e;
    }
    Scalar bendingSum = Scalar(0);
    for (int i = 0; i < NB; ++i) {
      const Scalar* ds = bendingDs_[i];
      const Scalar* dds = bendingDds_[i];
      Scalar rx = Scalar(0), ry = Scalar(0), rrx = Scalar(0), rry = Scalar(0);
      for (int j = 0; j < 4; ++j) {
        rx += ds[j] * q(2 * j);
        ry += ds[j] * q(2 * j + 1);
        rrx += dds[j] * q(2 * j);
        rry += dds[j] * q(2 * j + 1);
      }
      Bending b;
      const Status s = bendingAt(rx, ry, rrx, rry, Scalar(0), Scalar(0), Scalar(0), Scalar(0), b);
      if (s != Status::kOk) return s;
      const Scalar k = b.K - params_.referenceCurvature;
      bendingSum += bendingWeight_[i] * k * k;
    }
    const Scalar u = Scalar(0.5) * (params_.EA * axialSum + params_.EI * bendingSum);
    if (!isFinite(u)) return Status::kNonFiniteValue;
    energy = u;
    return Status::kOk;
  }

  Parameters params_{};
  bool ready_ = false;
  Matrix8 mass_ = Matrix8::Zero();
  Vector8 gravityForce_ = Vector8::Zero();
  // Shape function derivatives at the integration points of the selected axial rule and the weights
  // w_i L/2; unused slots are zero.
  Scalar axialDs_[kMaxAxialPoints][4] = {};
  Scalar axialWeight_[kMaxAxialPoints] = {};
  Scalar bendingDs_[kMaxBendingPoints][4] = {};
  Scalar bendingDds_[kMaxBendingPoints][4] = {};
  Scalar bendingWeight_[kMaxBendingPoints] = {};
};

}  // namespace beltsim
