// The analytic Jacobian of a contact pair with point-wise normals (docs/model_contact.md §4.8 PWN, §4.9):
// the general form, 2 x 11 maps per segment point, stiffness and damping separately. The fast
// segment-normal path and the dispatch between the two are in contact_jacobian.hpp.
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

// General form with 2 x 11 maps per segment; used for point-wise normals (docs/model_contact.md §4.8 PWN).
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
    const double ft = newtonTangentialForce(p.friction, h, fn, kin.tangentialVelocity,
                                            pair.seenCoordinate(i, kin.stickingCoordinate), period);
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

}  // namespace beltsim
