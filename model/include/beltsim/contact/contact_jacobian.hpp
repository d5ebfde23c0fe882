// Analytic Jacobian of one circle-cable contact pair (docs/model_contact.md §4.9 allows analytic derivatives in
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
// and of the marker (docs/model_contact.md §3): P_k = r + h_o n_hat(r'),  V_k = J_k q_dot,
//   J_k = S - (h_o / |r'|) t_hat n_hat^T S',  LHS_e = sum_k J_k^T F_k,
// including the derivatives of J_k (the offset's geometric terms) with respect to q.
#pragma once
#include <Eigen/Core>

#include "beltsim/contact/circle_cable_contact.hpp"
#include "beltsim/contact/contact_jacobian_pointwise.hpp"

namespace beltsim {

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
// the analytic stiffness and damping; same value as finiteDifferenceJacobian
// (pair_finite_difference.hpp) up to truncation error, at a fraction of the cost. Shape functions from a table
// built for this element length and the pair's segment count; segment normals only (see
// segmentNormalPath; contactPairJacobianGeneral covers point-wise normals).
//
// The chain runs in the pair's local inputs (segment points P_k, V_k and the circle) and is mapped
// to the 11 pair coordinates once per point, dF_k/dx = sum_j dF_k/dP_j J_j + dF_k/dV_j dV_j/dq,
// instead of once per segment and term. The two factors are applied to the local derivatives
// before that map, so the map runs once for the Newton block instead of once each for stiffness
// and damping (docs/model_drive_and_solver.md §7.6: the Newton matrix needs only the weighted sum).
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
        newtonTangentialForce(p.friction, h, forceN, kin.tangentialVelocity, pair.seenCoordinate(i, kin.stickingCoordinate),
                              period);
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

// The pair's LHS by the mesh speeds w_A, w_B of its element's nodes (columns 0, 1), through the
// anchors an eulerian mesh carries within the step (carried_anchor.hpp): a sticking segment's
// bristle force mu_k (x_cur + shift(w) - x_stick) moves by mu_k d shift / d w_n along the segment's
// tangential load direction. Zero for a pair without carried anchors.
template <int MaxSegments>
Status carriedAnchorColumns(const ContactPair<MaxSegments>& pair, const Vector8& q, const Vector8& qDot,
                            const SegmentShapeTable<MaxSegments>& table, const CircleState& circle,
                            Eigen::Matrix<double, 11, 2>& bySpeed) {
  bySpeed.setZero();
  const ContactParameters& p = pair.parameters();
  const CarriedAnchor<MaxSegments>* carried = pair.carried();
  if (carried == nullptr || !carried->active || p.friction.law != TangentialLaw::kBristle || p.friction.bristleStiffness == 0.0)
    return Status::kOk;
  for (int i = 0; i < MaxSegments; ++i) {
    if (i >= p.segmentCount) break;
    const SegmentHistory& h = pair.history(i);
    if (h.gap > 0.0 || h.state != StickSlip::kStick || carried->perSpeed[i] == 0.0) continue;
    Eigen::Matrix<double, 11, 2> u;
    const Status s = segmentLoadDirections(pair, q, qDot, table, circle, i, u);
    if (s != Status::kOk) return s;
    for (int n = 0; n < 2; ++n)
      bySpeed.col(n) += (p.friction.bristleStiffness * carried->shiftPerNodeSpeed(i, p.segmentCount, n)) * u.col(1);
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
