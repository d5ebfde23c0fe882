// Analytic Jacobian of one circle-cable contact pair (docs/model.md §4.9 allows analytic derivatives in
// place of the reference's finite differences): stiffness dLHS/dx and damping dLHS/dx_dot over
// the 11 local coordinates x = [q_e (8), circle x, y, phi], with the history D frozen, exactly
// as ContactPair::evaluateNewton computes the LHS.
//
// Chain of one segment i (interior case; clamped rho: drho = 0 and X = the end point):
//   rho = v_s.(c - P_i) / v_s.v_s,  X = P_i + rho v_s,  e = X - c,  delta = |e|,  n = e / delta
//   dn = (I - n n^T) de / delta,  dg = n^T de,  t = R n (R: +90 deg),  dtheta(n) = t^T dn
//   rel = (1-rho) V_i + rho V_{i+1} - c_dot - r omega t,  v_n = rel.n,  v_t = rel.t
//   f_n = k_c sgn(g)|g|^m + d_c v_n,  x_cur = r (theta(n) - phi) + sigma rho L_seg
//   f_t: mu_v v_t [+ mu_k wrap(x_cur - xi) if stick] | mu |f_n| s if slip | continuous law
//   F = f_n n + f_t t;  F_i += (1 - rho) F,  F_{i+1} += rho F,  F_sum += F,  T_sum += r f_t
// and of the marker (docs/model.md §3): P_k = r + h_o n_hat(r'),  V_k = J_k q_dot,
//   J_k = S - (h_o / |r'|) t_hat n_hat^T S',  LHS_e = sum_k J_k^T F_k,
// including the derivatives of J_k (the offset's geometric terms) with respect to q.
#pragma once
#include <Eigen/Core>

#include "beltsim/contact/circle_cable_contact.hpp"

namespace beltsim {

namespace contact_jacobian_detail {

using Row7 = Eigen::Matrix<double, 1, 7>;
using Mat27 = Eigen::Matrix<double, 2, 7>;
using Mat2 = Eigen::Matrix<double, 2, 2>;
using Mat28 = Eigen::Matrix<double, 2, 8>;
using Mat2x11 = Eigen::Matrix<double, 2, 11>;
using Mat11 = Eigen::Matrix<double, 11, 11>;

inline Mat2 rotation90() {
  Mat2 r;
  r << 0.0, -1.0, 1.0, 0.0;
  return r;
}

// Marker point k with everything its Jacobian terms need.
struct PointData {
  MarkerPoint m;
  double slopeNorm = 1.0;
  Vector2 normalHat = Vector2::Zero();  // n_hat = t_hat^perp
  Mat28 jacobian = Mat28::Zero();       // J_k = dP_k/dq = dV_k/dq_dot
  Mat28 velocityByQ = Mat28::Zero();    // dV_k/dq (offset term), at fixed q_dot
  Vector2 slopeRate = Vector2::Zero();  // r_dot'
};

inline Status pointData(const Vector8& q, const Vector8& qDot, double length, double x, double offset, PointData& pd) {
  const Status marker = markerPoint(q, length, x, pd.m);  // kDegenerateState where |r'| = 0
  if (marker != Status::kOk) return marker;
  pd.slopeNorm = std::sqrt(pd.m.slopeSquared);
  pd.normalHat = leftNormal(pd.m.tangent);
  pd.slopeRate = HermiteShape<double>::interpolate(pd.m.shape.ds, qDot);
  const Mat28 s = HermiteShape<double>::expand(pd.m.shape.s);
  const Mat28 sPrime = HermiteShape<double>::expand(pd.m.shape.ds);
  // J = S - (h_o/|r'|) t n^T S'
  pd.jacobian = s - (offset / pd.slopeNorm) * (pd.m.tangent * (pd.normalHat.transpose() * sPrime));
  if (offset != 0.0) {
    // V = r_dot - h_o t c, c = n.r_dot' / |r'|:
    // dV/dr' = -h_o [ n n^T c / |r'| - t ((r_dot'.t) n^T + (r_dot'.n) t^T) / |r'|^2 ]
    const double c = pd.normalHat.dot(pd.slopeRate) / pd.slopeNorm;
    const double l2 = pd.slopeNorm * pd.slopeNorm;
    const Mat2 dVdSlope = -offset * (pd.normalHat * pd.normalHat.transpose() * (c / pd.slopeNorm) -
                                     pd.m.tangent * (pd.slopeRate.dot(pd.m.tangent) * pd.normalHat.transpose() +
                                                     pd.slopeRate.dot(pd.normalHat) * pd.m.tangent.transpose()) /
                                         l2);
    pd.velocityByQ = dVdSlope * sPrime;
  }
  return Status::kOk;
}

// d(J^T F)/dq at fixed F, the offset's geometric stiffness (8 x 8):
// J^T F = S^T F - S'^T b,  b = (h_o/|r'|) n (t.F),
// db/dr' = (h_o/|r'|^2) [ -(t n^T + n t^T)(t.F) + n n^T (n.F) ].
inline Eigen::Matrix<double, 8, 8> offsetGeometricStiffness(const PointData& pd, double offset, const Vector2& force) {
  const double l2 = pd.slopeNorm * pd.slopeNorm;
  const Vector2& t = pd.m.tangent;
  const Vector2& n = pd.normalHat;
  const Mat2 db = (offset / l2) * (-(t * n.transpose() + n * t.transpose()) * t.dot(force) + n * n.transpose() * n.dot(force));
  const Mat28 sPrime = HermiteShape<double>::expand(pd.m.shape.ds);
  return -sPrime.transpose() * db * sPrime;
}

}  // namespace contact_jacobian_detail

// General form with 2 x 11 maps per segment; used for point-wise normals (docs/model.md §4.8 PWN).
template <int MaxSegments>
Status contactPairJacobianGeneral(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                                  double length, const CircleState& circle, Eigen::Matrix<double, 11, 11>& stiffness,
                                  Eigen::Matrix<double, 11, 11>& damping) {
  using namespace contact_jacobian_detail;
  stiffness.setZero();
  damping.setZero();
  if (!pair.anyFlagged()) return Status::kOk;
  const ContactParameters& p = pair.parameters();
  const int n = p.segmentCount;
  PointData points[MaxSegments + 1];
  for (int k = 0; k <= MaxSegments; ++k) {
    if (k > n) break;
    const Status s = pointData(q, qDot, length, length * k / n, p.offset, points[k]);
    if (s != Status::kOk) return s;
  }
  SegmentPoints<MaxSegments> sp;
  const Status ps = computeSegmentPoints(q, qDot, length, n, p.offset, sp);
  if (ps != Status::kOk) return ps;

  // Per point: dF_k/dx (K part, 2 x 11) and dF_k/dx_dot (D part); F_k itself for the offset term.
  Mat2x11 pointK[MaxSegments + 1], pointD[MaxSegments + 1];
  Vector2 pointForce[MaxSegments + 1];
  for (int k = 0; k <= MaxSegments; ++k) {
    pointK[k].setZero();
    pointD[k].setZero();
    pointForce[k].setZero();
  }
  Mat2x11 sumK = Mat2x11::Zero(), sumD = Mat2x11::Zero();
  Eigen::Matrix<double, 1, 11> torqueK = Eigen::Matrix<double, 1, 11>::Zero(), torqueD = torqueK;
  const Mat2 rot = rotation90();
  const Mat2 identity = Mat2::Identity();
  const double r = p.radius;
  const double period = 2.0 * detmath::kPi * r;

  for (int i = 0; i < MaxSegments; ++i) {
    if (i >= n) break;
    const SegmentHistory& h = pair.history(i);
    if (h.gap > 0.0) continue;
    const SegmentKinematics kin = segmentKinematics(p, sp, i, length, circle);
    const SegmentGeometry& g = kin.geometry;
    if (g.degenerate) continue;  // no defined direction: contributes a force but no reliable slope
    const Vector2& p0 = sp.position[i];
    const Vector2& v0 = sp.velocity[i];
    const Vector2& v1 = sp.velocity[i + 1];
    const Vector2 vs = g.direction;
    // Local inputs z = [P_i, P_{i+1}, c, phi], w = [V_i, V_{i+1}, c_dot, omega].
    Row7 dRho = Row7::Zero();
    Mat27 de = Mat27::Zero();
    const double b = vs.dot(vs);
    const bool interior = g.rho > 0.0 && g.rho < 1.0;
    if (interior) {
      const Vector2 cp = circle.centre - p0;
      dRho.segment<2>(0) = ((-cp + (2.0 * g.rho - 1.0) * vs) / b).transpose();
      dRho.segment<2>(2) = ((cp - 2.0 * g.rho * vs) / b).transpose();
      dRho.segment<2>(4) = (vs / b).transpose();
      de.block<2, 2>(0, 0) = (1.0 - g.rho) * identity;
      de.block<2, 2>(0, 2) = g.rho * identity;
      de += vs * dRho;
    } else if (g.rho >= 1.0) {
      de.block<2, 2>(0, 2) = identity;
    } else {
      de.block<2, 2>(0, 0) = identity;
    }
    de.block<2, 2>(0, 4) -= identity;
    // e = X - c; n = e/|e| (the contact code normalises d by its own length)
    const Vector2 nn = g.normal;
    const Vector2 tt = g.tangent;
    const double distance = g.distance > 0.0 ? g.distance : 1e-300;
    const Mat27 dn = (identity - nn * nn.transpose()) * de / distance;
    Row7 dGap = nn.transpose() * de;
    if (g.arcWeight != 0.0) {
      // Arc gap: g = delta - s, s = sqrt(r_c^2 - w(rho) b), b = |v_s|^2:
      // dg = dn.de + (w' b drho + w db) / (2 s), db = 2 v_s.(dP_{i+1} - dP_i).
      Row7 dB = Row7::Zero();
      dB.segment<2>(0) = -2.0 * vs.transpose();
      dB.segment<2>(2) = 2.0 * vs.transpose();
      dGap += (g.arcWeightSlope * b * dRho + g.arcWeight * dB) / (2.0 * g.surfaceRadius);
    }
    if (g.elementSagSlope != 0.0) dGap += g.elementSagSlope * dRho;  // g = ... + e(xi(rho))
    const Mat27 dt = rot * dn;
    // Relative velocity.
    const Vector2 pointVelocity = (1.0 - g.rho) * v0 + g.rho * v1;
    const Vector2 rel = pointVelocity - circle.velocity - r * circle.angularVelocity * tt;
    const Mat27 dRelZ = (v1 - v0) * dRho - r * circle.angularVelocity * dt;
    Mat27 dRelW = Mat27::Zero();
    dRelW.block<2, 2>(0, 0) = (1.0 - g.rho) * identity;
    dRelW.block<2, 2>(0, 2) = g.rho * identity;
    dRelW.block<2, 2>(0, 4) = -identity;
    dRelW.col(6) = -r * tt;
    const Row7 dVnZ = nn.transpose() * dRelZ + rel.transpose() * dn;
    const Row7 dVnW = nn.transpose() * dRelW;
    const Row7 dVtZ = tt.transpose() * dRelZ + rel.transpose() * dt;
    const Row7 dVtW = tt.transpose() * dRelW;
    // Normal force.
    const double fn = normalForceLaw(p, g.gap, kin.normalVelocity);
    double springSlope = p.contactStiffness;
    if (p.normalExponent != 1.0) {
      const double ag = absOf(g.gap);
      springSlope = p.contactStiffness * p.normalExponent *
                    (p.normalExponent == 1.5 ? std::sqrt(ag) : detmath::pow(ag, p.normalExponent - 1.0));
    }
    const Row7 dFnZ = springSlope * dGap + p.contactDamping * dVnZ;
    const Row7 dFnW = p.contactDamping * dVnW;
    // Tangential force (frozen state).
    const double ft = newtonTangentialForce(p.friction, h, fn, kin.tangentialVelocity, kin.stickingCoordinate, period);
    Row7 dFtZ = Row7::Zero(), dFtW = Row7::Zero();
    if (p.friction.law == TangentialLaw::kContinuous) {
      const double speed = absOf(kin.tangentialVelocity);
      const double decay = detmath::exp(-speed / p.friction.characteristicVelocity);
      const double shape = signOf(kin.tangentialVelocity) * (1.0 - decay);
      const double mu = p.friction.frictionCoefficient;
      dFtZ = mu * shape * signOf(fn) * dFnZ + mu * absOf(fn) * decay / p.friction.characteristicVelocity * dVtZ;
      dFtW = mu * shape * signOf(fn) * dFnW + mu * absOf(fn) * decay / p.friction.characteristicVelocity * dVtW;
    } else if (isSlipping(h.state)) {
      const double factor = p.friction.frictionCoefficient * slipSign(h.state) * signOf(fn);
      dFtZ = factor * dFnZ;
      dFtW = factor * dFnW;
    } else {
      dFtZ = p.friction.velocityPenalty * dVtZ;
      dFtW = p.friction.velocityPenalty * dVtW;
      if (h.state == StickSlip::kStick && p.friction.bristleStiffness != 0.0) {
        const double sigma = tt.dot(vs) > 0.0 ? -1.0 : 1.0;
        Row7 dX = r * (tt.transpose() * dn) + sigma * (length / n) * dRho;
        dX(6) -= r;  // x_cur = r (theta - phi) + ...
        dFtZ += p.friction.bristleStiffness * dX;
      }
    }
    // Maps from local inputs to the 11 pair coordinates.
    Eigen::Matrix<double, 7, 11> zByX = Eigen::Matrix<double, 7, 11>::Zero();
    Eigen::Matrix<double, 7, 11> wByXdot = Eigen::Matrix<double, 7, 11>::Zero();
    Eigen::Matrix<double, 7, 11> wByX = Eigen::Matrix<double, 7, 11>::Zero();
    zByX.block<2, 8>(0, 0) = points[i].jacobian;
    zByX.block<2, 8>(2, 0) = points[i + 1].jacobian;
    zByX(4, 8) = 1.0;
    zByX(5, 9) = 1.0;
    zByX(6, 10) = 1.0;
    wByXdot.block<2, 8>(0, 0) = points[i].jacobian;
    wByXdot.block<2, 8>(2, 0) = points[i + 1].jacobian;
    wByXdot(4, 8) = 1.0;
    wByXdot(5, 9) = 1.0;
    wByXdot(6, 10) = 1.0;
    wByX.block<2, 8>(0, 0) = points[i].velocityByQ;
    wByX.block<2, 8>(2, 0) = points[i + 1].velocityByQ;
    const auto toK = [&](const auto& dz, const auto& dw) { return (dz * zByX + dw * wByX).eval(); };
    const auto toD = [&](const auto& dw) { return (dw * wByXdot).eval(); };
    const Eigen::Matrix<double, 1, 11> rhoK = dRho * zByX;
    const Eigen::Matrix<double, 1, 11> fnK = toK(dFnZ, dFnW), fnD = toD(dFnW);
    const Eigen::Matrix<double, 1, 11> ftK = toK(dFtZ, dFtW), ftD = toD(dFtW);
    if (p.useSegmentNormals) {
      const Vector2 force = fn * nn + ft * tt;
      const Mat2x11 forceK = nn * fnK + fn * (dn * zByX) + tt * ftK + ft * (dt * zByX);
      const Mat2x11 forceD = nn * fnD + tt * ftD;
      Mat2x11 split;  // d(rho)/dx moves force from point i to point i+1
      split.noalias() = force * rhoK;
      pointK[i] += (1.0 - g.rho) * forceK - split;
      pointK[i + 1] += g.rho * forceK + split;
      pointD[i] += (1.0 - g.rho) * forceD;
      pointD[i + 1] += g.rho * forceD;
      pointForce[i] += (1.0 - g.rho) * force;
      pointForce[i + 1] += g.rho * force;
      sumK += forceK;
      sumD += forceD;
    } else {
      // Point-wise normals: n_k = (P_k - c)/|P_k - c| at each end point.
      Vector2 endForce[2];
      Mat2x11 endK[2], endD[2];
      for (int side = 0; side < 2; ++side) {
        const Vector2 d = sp.position[i + side] - circle.centre;
        const double len = d.norm();
        const Vector2 nk = len > 0.0 ? Vector2(d / len) : Vector2(0.0, 1.0);
        const Vector2 tk = leftNormal(nk);
        Mat2x11 dd = Mat2x11::Zero();
        dd.block<2, 8>(0, 0) = points[i + side].jacobian;
        dd.block<2, 2>(0, 8) = -identity;
        const Mat2x11 dnk = len > 0.0 ? Mat2x11((identity - nk * nk.transpose()) * dd / len) : Mat2x11::Zero();
        endForce[side] = fn * nk + ft * tk;
        endK[side] = nk * fnK + fn * dnk + tk * ftK + ft * (rot * dnk);
        endD[side] = nk * fnD + tk * ftD;
      }
      const Mat2x11& endD0 = endD[0];
      const Mat2x11& endD1 = endD[1];
      Mat2x11 splitLeft, splitRight;
      splitLeft.noalias() = endForce[0] * rhoK;
      splitRight.noalias() = endForce[1] * rhoK;
      pointK[i] += (1.0 - g.rho) * endK[0] - splitLeft;
      pointK[i + 1] += g.rho * endK[1] + splitRight;
      pointD[i] += (1.0 - g.rho) * endD0;
      pointD[i + 1] += g.rho * endD1;
      pointForce[i] += (1.0 - g.rho) * endForce[0];
      pointForce[i + 1] += g.rho * endForce[1];
      sumK += (1.0 - g.rho) * endK[0] + g.rho * endK[1] + (splitRight - splitLeft);
      sumD += (1.0 - g.rho) * endD0 + g.rho * endD1;
    }
    torqueK += r * ftK;
    torqueD += r * ftD;
  }
  // Element rows: sum_k J_k^T dF_k (+ the offset's geometric term); circle rows: -F_sum, -T_sum.
  for (int k = 0; k <= MaxSegments; ++k) {
    if (k > n) break;
    stiffness.template block<8, 11>(0, 0) += points[k].jacobian.transpose() * pointK[k];
    damping.template block<8, 11>(0, 0) += points[k].jacobian.transpose() * pointD[k];
    if (p.offset != 0.0 && !pointForce[k].isZero(0.0))
      stiffness.template block<8, 8>(0, 0) += offsetGeometricStiffness(points[k], p.offset, pointForce[k]);
  }
  stiffness.template block<2, 11>(8, 0) = -sumK;
  damping.template block<2, 11>(8, 0) = -sumD;
  stiffness.template block<1, 11>(10, 0) = -torqueK;
  damping.template block<1, 11>(10, 0) = -torqueD;
  return Status::kOk;
}

namespace contact_jacobian_detail {

// Band of one segment point k in the pair's local inputs: columns [P_{k-1} (2), P_k (2),
// P_{k+1} (2), c (2), phi] (positions) or the matching velocities; a point's force depends only on
// its two neighbouring segments.
constexpr int kBand = 9;

}  // namespace contact_jacobian_detail

// Whether a pair takes the fast analytic path below (segment normals, table of its segment count).
template <int MaxSegments>
bool segmentNormalPath(const ContactPair<MaxSegments>& pair, const SegmentShapeTable<MaxSegments>& table) {
  return pair.parameters().useSegmentNormals && table.segmentCount == pair.parameters().segmentCount;
}

// The pair's block of the Newton matrix, stiffnessFactor dLHS/dx + dampingFactor dLHS/dx_dot, of
// the analytic stiffness and damping; same value as ContactPair::jacobian (which uses central
// differences) up to truncation error, at a fraction of the cost. Shape functions from a table
// built for this element length and the pair's segment count; segment normals only (see
// segmentNormalPath; contactPairJacobianGeneral covers point-wise normals).
//
// The chain runs in the pair's local inputs (segment points P_k, V_k and the circle) and is mapped
// to the 11 pair coordinates once per point, dF_k/dx = sum_j dF_k/dP_j J_j + dF_k/dV_j dV_j/dq,
// instead of once per segment and term. The two factors are applied to the local derivatives
// before that map, so the map runs once for the Newton block instead of once each for stiffness
// and damping (docs/model.md §7.6: the Newton matrix needs only the weighted sum).
//
// The block is a sum over segment terms (a segment in a given history, with a weight): the pair's
// block takes every segment in its current history with weight 1; the change of one segment's
// switch (contactSegmentSwitchBlock) takes the segment after (+1) and before (-1) the switch, so
// the points, the marker maps and the map to the 11 coordinates run once for the difference.
struct SegmentTerm {
  int segment = 0;
  SegmentHistory history;
  double weight = 1.0;
};

template <int MaxSegments>
Status segmentTermsNewtonMatrix(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                                const SegmentShapeTable<MaxSegments>& table, const CircleState& circle,
                                const SegmentTerm* terms, int termCount, double stiffnessFactor, double dampingFactor,
                                Eigen::Matrix<double, 11, 11>& block) {
  using namespace contact_jacobian_detail;
  const ContactParameters& p = pair.parameters();
  block.setZero();
  if (!segmentNormalPath(pair, table)) return Status::kInvalidParameter;
  if (termCount == 0) return Status::kOk;
  constexpr int kPoints = MaxSegments + 1;
  const int n = p.segmentCount;
  const double length = table.length;
  const double offset = p.offset;
  SegmentPoints<MaxSegments> sp;
  const Status ps = computeSegmentPoints(q, qDot, table, offset, sp);
  if (ps != Status::kOk) return ps;

  // Per point: dF_k/d(local positions) gz, dF_k/d(local velocities) gw over the band, the force.
  double gz[kPoints][2][kBand], gw[kPoints][2][kBand];
  double pointForce[kPoints][2];
  bool touched[kPoints];
  for (int k = 0; k < kPoints; ++k) {
    touched[k] = false;
    pointForce[k][0] = pointForce[k][1] = 0.0;
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < kBand; ++c) gz[k][a][c] = gw[k][a][c] = 0.0;
  }
  // Torque row over all local inputs: [P_0 .. P_n, c, phi] (velocities alike).
  constexpr int kLocal = 2 * kPoints + 3;
  double tz[kLocal], tw[kLocal];
  for (int c = 0; c < kLocal; ++c) tz[c] = tw[c] = 0.0;
  const int circleColumn = 2 * (n + 1);
  const double r = p.radius;
  const double period = 2.0 * detmath::kPi * r;
  const double omega = circle.angularVelocity;

  for (int term = 0; term < 2 * MaxSegments; ++term) {  // a pair's segments, or one segment twice
    if (term >= termCount) break;
    const int i = terms[term].segment;
    const SegmentHistory& h = terms[term].history;
    if (h.gap > 0.0) continue;
    const SegmentKinematics kin =
        segmentKinematics(p, sp, i, length, circle, newtonForceNeedsStickingCoordinate(p.friction, h));
    const SegmentGeometry& g = kin.geometry;
    if (g.degenerate) continue;  // no defined direction: contributes a force but no reliable slope
    const double rho = g.rho;
    const Vector2& p0 = sp.position[i];
    const Vector2& v0 = sp.velocity[i];
    const Vector2& v1 = sp.velocity[i + 1];
    const double vsx = g.direction(0), vsy = g.direction(1);
    // Local inputs z = [P_i, P_{i+1}, c, phi], w = [V_i, V_{i+1}, c_dot, omega].
    double dRho[7] = {0, 0, 0, 0, 0, 0, 0};
    double de[2][7] = {{0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0}};
    if (rho > 0.0 && rho < 1.0) {
      const double b = vsx * vsx + vsy * vsy;
      const double cpx = circle.centre(0) - p0(0), cpy = circle.centre(1) - p0(1);
      dRho[0] = (-cpx + (2.0 * rho - 1.0) * vsx) / b;
      dRho[1] = (-cpy + (2.0 * rho - 1.0) * vsy) / b;
      dRho[2] = (cpx - 2.0 * rho * vsx) / b;
      dRho[3] = (cpy - 2.0 * rho * vsy) / b;
      dRho[4] = vsx / b;
      dRho[5] = vsy / b;
      de[0][0] = de[1][1] = 1.0 - rho;
      de[0][2] = de[1][3] = rho;
      for (int c = 0; c < 6; ++c) {
        de[0][c] += vsx * dRho[c];
        de[1][c] += vsy * dRho[c];
      }
    } else if (rho >= 1.0) {
      de[0][2] = de[1][3] = 1.0;
    } else {
      de[0][0] = de[1][1] = 1.0;
    }
    de[0][4] -= 1.0;
    de[1][5] -= 1.0;
    const double nx = g.normal(0), ny = g.normal(1);
    const double tx = g.tangent(0), ty = g.tangent(1);
    const double distance = g.distance > 0.0 ? g.distance : 1e-300;
    // dn = (I - n n^T) de / delta, dt = R dn, dg = n^T de (columns 0..5; phi does not move e).
    double dn[2][7], dt[2][7], dGap[7];
    for (int c = 0; c < 7; ++c) {
      const double ndc = nx * de[0][c] + ny * de[1][c];
      dGap[c] = ndc;
      dn[0][c] = (de[0][c] - nx * ndc) / distance;
      dn[1][c] = (de[1][c] - ny * ndc) / distance;
      dt[0][c] = -dn[1][c];
      dt[1][c] = dn[0][c];
    }
    if (g.arcWeight != 0.0) {
      // Arc gap: g = delta - s, s = sqrt(r_c^2 - w(rho) b), b = |v_s|^2:
      // dg = n.de + (w' b drho + w db) / (2 s), db = 2 v_s.(dP_{i+1} - dP_i).
      const double byRho = g.arcWeightSlope * (vsx * vsx + vsy * vsy) / (2.0 * g.surfaceRadius);
      const double byB = g.arcWeight / g.surfaceRadius;  // times v_s
      for (int c = 0; c < 7; ++c) dGap[c] += byRho * dRho[c];
      dGap[0] -= byB * vsx;
      dGap[1] -= byB * vsy;
      dGap[2] += byB * vsx;
      dGap[3] += byB * vsy;
    }
    if (g.elementSagSlope != 0.0) {  // g = ... + e(xi(rho))
      for (int c = 0; c < 7; ++c) dGap[c] += g.elementSagSlope * dRho[c];
    }
    // Relative velocity rel = (1-rho) V_i + rho V_{i+1} - c_dot - r omega t.
    const double relx = ((1.0 - rho) * v0(0) + rho * v1(0)) - circle.velocity(0) - r * omega * tx;
    const double rely = ((1.0 - rho) * v0(1) + rho * v1(1)) - circle.velocity(1) - r * omega * ty;
    const double dvx = v1(0) - v0(0), dvy = v1(1) - v0(1);
    double dVnZ[7], dVtZ[7];
    for (int c = 0; c < 7; ++c) {
      const double relZx = dvx * dRho[c] - r * omega * dt[0][c];
      const double relZy = dvy * dRho[c] - r * omega * dt[1][c];
      dVnZ[c] = (nx * relZx + ny * relZy) + (relx * dn[0][c] + rely * dn[1][c]);
      dVtZ[c] = (tx * relZx + ty * relZy) + (relx * dt[0][c] + rely * dt[1][c]);
    }
    // d rel / dw: [(1-rho) I, rho I, -I, -r t].
    const double dVnW[7] = {(1.0 - rho) * nx, (1.0 - rho) * ny, rho * nx, rho * ny, -nx, -ny, -r * (nx * tx + ny * ty)};
    const double dVtW[7] = {(1.0 - rho) * tx, (1.0 - rho) * ty, rho * tx, rho * ty, -tx, -ty, -r * (tx * tx + ty * ty)};
    // Normal force.
    const double forceN = normalForceLaw(p, g.gap, kin.normalVelocity);
    double springSlope = p.contactStiffness;
    if (p.normalExponent != 1.0) {
      const double ag = absOf(g.gap);
      springSlope = p.contactStiffness * p.normalExponent *
                    (p.normalExponent == 1.5 ? std::sqrt(ag) : detmath::pow(ag, p.normalExponent - 1.0));
    }
    double dFnZ[7], dFnW[7];
    for (int c = 0; c < 7; ++c) {
      dFnZ[c] = springSlope * dGap[c] + p.contactDamping * dVnZ[c];
      dFnW[c] = p.contactDamping * dVnW[c];
    }
    // Tangential force (frozen state).
    const double forceT =
        newtonTangentialForce(p.friction, h, forceN, kin.tangentialVelocity, kin.stickingCoordinate, period);
    double dFtZ[7], dFtW[7];
    if (p.friction.law == TangentialLaw::kContinuous) {
      const double speed = absOf(kin.tangentialVelocity);
      const double decay = detmath::exp(-speed / p.friction.characteristicVelocity);
      const double shape = signOf(kin.tangentialVelocity) * (1.0 - decay);
      const double mu = p.friction.frictionCoefficient;
      const double byFn = mu * shape * signOf(forceN);
      const double byVt = mu * absOf(forceN) * decay / p.friction.characteristicVelocity;
      for (int c = 0; c < 7; ++c) {
        dFtZ[c] = byFn * dFnZ[c] + byVt * dVtZ[c];
        dFtW[c] = byFn * dFnW[c] + byVt * dVtW[c];
      }
    } else if (isSlipping(h.state)) {
      const double factor = p.friction.frictionCoefficient * slipSign(h.state) * signOf(forceN);
      for (int c = 0; c < 7; ++c) {
        dFtZ[c] = factor * dFnZ[c];
        dFtW[c] = factor * dFnW[c];
      }
    } else {
      const double muV = p.friction.velocityPenalty;
      for (int c = 0; c < 7; ++c) {
        dFtZ[c] = muV * dVtZ[c];
        dFtW[c] = muV * dVtW[c];
      }
      if (h.state == StickSlip::kStick && p.friction.bristleStiffness != 0.0) {
        // x_cur = r (theta(n) - phi) + sigma rho L_seg, dtheta = t^T dn.
        const double sigma = tx * vsx + ty * vsy > 0.0 ? -1.0 : 1.0;
        const double segmentLength = length / n;
        const double muK = p.friction.bristleStiffness;
        for (int c = 0; c < 7; ++c) {
          double dX = r * (tx * dn[0][c] + ty * dn[1][c]) + sigma * segmentLength * dRho[c];
          if (c == 6) dX -= r;
          dFtZ[c] += muK * dX;
        }
      }
    }
    // The term's weight scales everything below, which is linear in (f_n, f_t) and their slopes.
    const double weight = terms[term].weight;
    if (weight != 1.0) {
      for (int c = 0; c < 7; ++c) {
        dFnZ[c] *= weight;
        dFnW[c] *= weight;
        dFtZ[c] *= weight;
        dFtW[c] *= weight;
      }
    }
    const double fn = weight * forceN;
    const double ft = weight * forceT;
    // F = f_n n + f_t t: dF/dz = n dFn + fn dn + t dFt + ft dt, dF/dw = n dFn_w + t dFt_w.
    const double fx = fn * nx + ft * tx, fy = fn * ny + ft * ty;
    const double keep = 1.0 - rho;
    // Point i: band column = local + 2; point i+1: positions local (0..3), circle local + 2.
    for (int c = 0; c < 7; ++c) {
      const double fzx = nx * dFnZ[c] + fn * dn[0][c] + tx * dFtZ[c] + ft * dt[0][c];
      const double fzy = ny * dFnZ[c] + fn * dn[1][c] + ty * dFtZ[c] + ft * dt[1][c];
      const double fwx = nx * dFnW[c] + tx * dFtW[c];
      const double fwy = ny * dFnW[c] + ty * dFtW[c];
      const int left = c + 2, right = c < 4 ? c : c + 2;
      // d(rho)/dz moves force from point i to point i+1.
      gz[i][0][left] += keep * fzx - fx * dRho[c];
      gz[i][1][left] += keep * fzy - fy * dRho[c];
      gz[i + 1][0][right] += rho * fzx + fx * dRho[c];
      gz[i + 1][1][right] += rho * fzy + fy * dRho[c];
      gw[i][0][left] += keep * fwx;
      gw[i][1][left] += keep * fwy;
      gw[i + 1][0][right] += rho * fwx;
      gw[i + 1][1][right] += rho * fwy;
      const int column = c < 4 ? 2 * i + c : circleColumn + (c - 4);
      tz[column] += r * dFtZ[c];
      tw[column] += r * dFtW[c];
    }
    touched[i] = touched[i + 1] = true;
    pointForce[i][0] += keep * fx;
    pointForce[i][1] += keep * fy;
    pointForce[i + 1][0] += rho * fx;
    pointForce[i + 1][1] += rho * fy;
  }

  // Marker Jacobians J_k = dP_k/dq = dV_k/dq_dot (2 x 8) and dV_k/dq (offset term).
  double jac[kPoints][2][8], vByQ[kPoints][2][8];
  for (int k = 0; k < kPoints; ++k) {
    if (k > n) break;
    const HermiteShape<double>& shape = table.shape[k];
    const double slopeNorm = std::sqrt(sp.slopeSquared[k]);
    const double tx = sp.tangent[k](0), ty = sp.tangent[k](1);
    const double hx = -ty, hy = tx;  // n_hat
    const double coefficient = offset / slopeNorm;
    // J = S - (h_o/|r'|) t n^T S'
    for (int j = 0; j < 4; ++j) {
      const double s = shape.s(j), ds = shape.ds(j);
      jac[k][0][2 * j] = s - coefficient * (tx * (hx * ds));
      jac[k][0][2 * j + 1] = -(coefficient * (tx * (hy * ds)));
      jac[k][1][2 * j] = -(coefficient * (ty * (hx * ds)));
      jac[k][1][2 * j + 1] = s - coefficient * (ty * (hy * ds));
    }
    if (offset != 0.0) {
      // V = r_dot - h_o t c, c = n.r_dot' / |r'|:
      // dV/dr' = -h_o [ n n^T c / |r'| - t ((r_dot'.t) n^T + (r_dot'.n) t^T) / |r'|^2 ]
      const Vector2 rate = HermiteShape<double>::interpolate(shape.ds, qDot);
      const double c = (hx * rate(0) + hy * rate(1)) / slopeNorm;
      const double l2 = slopeNorm * slopeNorm;
      const double cn = c / slopeNorm;
      const double rt = rate(0) * tx + rate(1) * ty, rn = rate(0) * hx + rate(1) * hy;
      const double m[2][2] = {{-offset * (hx * hx * cn - tx * (rt * hx + rn * tx) / l2),
                               -offset * (hx * hy * cn - tx * (rt * hy + rn * ty) / l2)},
                              {-offset * (hy * hx * cn - ty * (rt * hx + rn * tx) / l2),
                               -offset * (hy * hy * cn - ty * (rt * hy + rn * ty) / l2)}};
      for (int j = 0; j < 4; ++j) {
        const double ds = shape.ds(j);
        for (int a = 0; a < 2; ++a) {
          vByQ[k][a][2 * j] = m[a][0] * ds;
          vByQ[k][a][2 * j + 1] = m[a][1] * ds;
        }
      }
    }
  }

  // Element rows: sum_k J_k^T dA_k (+ the offset's geometric term); circle rows: -A_sum, -T_sum,
  // with dA_k = stiffnessFactor dF_k/dx + dampingFactor dF_k/dx_dot.
  const double kf = stiffnessFactor, df = dampingFactor;
  double sum[2][11];
  for (int a = 0; a < 2; ++a)
    for (int c = 0; c < 11; ++c) sum[a][c] = 0.0;
  for (int k = 0; k < kPoints; ++k) {
    if (k > n) break;
    if (!touched[k]) continue;
    double fa[2][11];  // dA_k/dx
    for (int a = 0; a < 2; ++a) {
      for (int c = 0; c < 8; ++c) fa[a][c] = 0.0;
      for (int c = 0; c < 3; ++c) fa[a][8 + c] = kf * gz[k][a][6 + c] + df * gw[k][a][6 + c];
    }
    for (int nb = 0; nb < 3; ++nb) {
      const int j = k - 1 + nb;
      if (j < 0 || j > n) continue;
      const int o = 2 * nb;
      for (int a = 0; a < 2; ++a) {
        // P_j and V_j share the map J_j; V_j also moves with q through the offset (vByQ).
        const double c0 = kf * gz[k][a][o] + df * gw[k][a][o];
        const double c1 = kf * gz[k][a][o + 1] + df * gw[k][a][o + 1];
        for (int c = 0; c < 8; ++c) fa[a][c] += c0 * jac[j][0][c] + c1 * jac[j][1][c];
        if (offset != 0.0) {
          const double w0 = kf * gw[k][a][o], w1 = kf * gw[k][a][o + 1];
          for (int c = 0; c < 8; ++c) fa[a][c] += w0 * vByQ[j][0][c] + w1 * vByQ[j][1][c];
        }
      }
    }
    for (int row = 0; row < 8; ++row) {
      const double j0 = jac[k][0][row], j1 = jac[k][1][row];
      for (int c = 0; c < 11; ++c) block(row, c) += j0 * fa[0][c] + j1 * fa[1][c];
    }
    for (int a = 0; a < 2; ++a)
      for (int c = 0; c < 11; ++c) sum[a][c] += fa[a][c];
    if (offset != 0.0 && kf != 0.0 && (pointForce[k][0] != 0.0 || pointForce[k][1] != 0.0)) {
      // d(J^T F)/dq at fixed F: -S'^T db S', db = (h_o/|r'|^2) [-(t n^T + n t^T)(t.F) + n n^T (n.F)].
      const double l2 = sp.slopeSquared[k];
      const double tx = sp.tangent[k](0), ty = sp.tangent[k](1);
      const double hx = -ty, hy = tx;
      const double tF = tx * pointForce[k][0] + ty * pointForce[k][1];
      const double nF = hx * pointForce[k][0] + hy * pointForce[k][1];
      const double scale = kf * (offset / l2);
      const double db[2][2] = {{scale * (-(2.0 * tx * hx) * tF + hx * hx * nF), scale * (-(tx * hy + hx * ty) * tF + hx * hy * nF)},
                               {scale * (-(ty * hx + hy * tx) * tF + hy * hx * nF), scale * (-(2.0 * ty * hy) * tF + hy * hy * nF)}};
      const HermiteShape<double>& shape = table.shape[k];
      for (int bj = 0; bj < 4; ++bj)
        for (int bl = 0; bl < 4; ++bl) {
          const double dd = shape.ds(bj) * shape.ds(bl);
          for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) block(2 * bj + a, 2 * bl + b) -= dd * db[a][b];
        }
    }
  }
  // Torque row: T = sum r f_t over the local inputs, mapped like the forces.
  double torque[11];
  for (int c = 0; c < 8; ++c) torque[c] = 0.0;
  for (int c = 0; c < 3; ++c) torque[8 + c] = kf * tz[circleColumn + c] + df * tw[circleColumn + c];
  for (int j = 0; j < kPoints; ++j) {
    if (j > n) break;
    const double z0 = tz[2 * j], z1 = tz[2 * j + 1], w0 = tw[2 * j], w1 = tw[2 * j + 1];
    if (z0 == 0.0 && z1 == 0.0 && w0 == 0.0 && w1 == 0.0) continue;
    const double c0 = kf * z0 + df * w0, c1 = kf * z1 + df * w1;
    for (int c = 0; c < 8; ++c) torque[c] += c0 * jac[j][0][c] + c1 * jac[j][1][c];
    if (offset != 0.0)
      for (int c = 0; c < 8; ++c) torque[c] += kf * w0 * vByQ[j][0][c] + kf * w1 * vByQ[j][1][c];
  }
  for (int c = 0; c < 11; ++c) {
    block(8, c) = -sum[0][c];
    block(9, c) = -sum[1][c];
    block(10, c) = -torque[c];
  }
  return Status::kOk;
}

// The pair's Newton block: every segment in contact with its current history.
template <int MaxSegments>
Status contactPairNewtonMatrix(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                               const SegmentShapeTable<MaxSegments>& table, const CircleState& circle,
                               double stiffnessFactor, double dampingFactor, Eigen::Matrix<double, 11, 11>& block) {
  SegmentTerm terms[MaxSegments];
  int count = 0;
  for (int i = 0; i < MaxSegments; ++i) {
    if (i >= pair.parameters().segmentCount) break;
    if (pair.history(i).gap > 0.0) continue;
    terms[count].segment = i;
    terms[count].history = pair.history(i);
    ++count;
  }
  return segmentTermsNewtonMatrix(pair, q, qDot, table, circle, terms, count, stiffnessFactor, dampingFactor, block);
}

// The change of the pair's Newton block when segment i goes from history `before` to `after`
// (either may be out of contact, gap > 0): block(after) - block(before) of that segment alone.
template <int MaxSegments>
Status contactSegmentSwitchBlock(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                                 const SegmentShapeTable<MaxSegments>& table, const CircleState& circle, int i,
                                 const SegmentHistory& before, const SegmentHistory& after, double stiffnessFactor,
                                 double dampingFactor, Eigen::Matrix<double, 11, 11>& block) {
  SegmentTerm terms[2];
  terms[0].segment = terms[1].segment = i;
  terms[0].history = after;
  terms[1].history = before;
  terms[1].weight = -1.0;
  return segmentTermsNewtonMatrix(pair, q, qDot, table, circle, terms, 2, stiffnessFactor, dampingFactor, block);
}

// Stiffness and damping of a pair separately (tests, tools): the Newton block with the factors
// (1, 0) and (0, 1); point-wise normals take the general form.
// Generalized LHS of a unit force on segment i along its normal (column 0) and its tangent
// (column 1) over the pair's 11 coordinates, as evaluateNewton distributes a segment force: the
// directions a switch of the segment's state changes the pair's Newton block along (the kept
// matrix's low-rank columns, kept_newton_matrix.hpp).
template <int MaxSegments>
Status segmentLoadDirections(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                             const SegmentShapeTable<MaxSegments>& table, const CircleState& cs, int i,
                             Eigen::Matrix<double, 11, 2>& u) {
  SegmentPoints<MaxSegments> pts;
  const Status s = computeSegmentPoints(q, qDot, table, pair.parameters().offset, pts);
  if (s != Status::kOk) return s;
  const SegmentGeometry g = segmentGeometry(pts.position[i], pts.position[i + 1], cs.centre, pair.parameters(), i);
  const Vector2 direction[2] = {g.normal, g.tangent};
  for (int a = 0; a < 2; ++a) {
    Vector8 element = Vector8::Zero();
    addPointForce(table.shape[i], pts.slope[i], pts.tangent[i], pts.slopeSquared[i], pair.parameters().offset,
                  Vector2((1.0 - g.rho) * direction[a]), element);
    addPointForce(table.shape[i + 1], pts.slope[i + 1], pts.tangent[i + 1], pts.slopeSquared[i + 1],
                  pair.parameters().offset, Vector2(g.rho * direction[a]), element);
    u.col(a).template head<8>() = element;
    u(8, a) = -direction[a](0);
    u(9, a) = -direction[a](1);
    u(10, a) = a == 1 ? -pair.parameters().radius : 0.0;
  }
  return Status::kOk;
}

template <int MaxSegments>
Status contactPairJacobian(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                           const SegmentShapeTable<MaxSegments>& table, const CircleState& circle,
                           Eigen::Matrix<double, 11, 11>& stiffness, Eigen::Matrix<double, 11, 11>& damping) {
  if (!segmentNormalPath(pair, table))
    return contactPairJacobianGeneral(pair, q, qDot, table.length, circle, stiffness, damping);
  const Status s = contactPairNewtonMatrix(pair, q, qDot, table, circle, 1.0, 0.0, stiffness);
  if (s != Status::kOk) return s;
  return contactPairNewtonMatrix(pair, q, qDot, table, circle, 0.0, 1.0, damping);
}

// Same, evaluating the shape functions on the fly.
template <int MaxSegments>
Status contactPairJacobian(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot, double length,
                           const CircleState& circle, Eigen::Matrix<double, 11, 11>& stiffness,
                           Eigen::Matrix<double, 11, 11>& damping) {
  SegmentShapeTable<MaxSegments> table;
  table.build(length, pair.parameters().segmentCount);
  return contactPairJacobian(pair, q, qDot, table, circle, stiffness, damping);
}

}  // namespace beltsim
