#include "run_analysis.hpp"

#include <algorithm>
#include <cmath>

namespace beltsim::host {

namespace {

// Pulleys that turn with the belt against a drive or load: the capstan check is written for them.
bool turnsWithBelt(const Scenario& sc, int p) {
  const PulleyKind kind = sc.pulleys[p].circle.kind;
  return kind == PulleyKind::kSpeedDriven || kind == PulleyKind::kTorqueDriven || kind == PulleyKind::kFixedAxis;
}

TailMeans tailMeans(const std::vector<TimeRow>& rows) {
  TailMeans m;
  if (rows.empty()) return m;
  const double end = rows.back().time;
  m.window = std::min(0.15, 0.1 * end);
  std::vector<const TimeRow*> tail;
  for (const TimeRow& r : rows)
    if (r.time >= end - m.window - 1e-12) tail.push_back(&r);
  if (tail.empty()) return m;
  const double n = static_cast<double>(tail.size());
  for (const TimeRow* r : tail) {
    for (int k = 0; k < kMaxPulleys; ++k) {
      m.omega[k] += r->omega[k];
      m.torque[k] += r->torque[k];
      m.beltTorque[k] += r->beltTorque[k];
      m.spanForce[k] += r->spanForce[k];
      m.spanSpeed[k] += r->spanSpeed[k];
    }
  }
  for (int k = 0; k < kMaxPulleys; ++k) {
    m.omega[k] /= n;
    m.torque[k] /= n;
    m.beltTorque[k] /= n;
    m.spanForce[k] /= n;
    m.spanSpeed[k] /= n;
  }
  auto square = [](double x) { return x * x; };
  for (const TimeRow* r : tail) {
    for (int k = 0; k < kMaxPulleys; ++k) {
      m.omegaStd[k] += square(r->omega[k] - m.omega[k]);
      m.torqueStd[k] += square(r->torque[k] - m.torque[k]);
      m.spanForceStd[k] += square(r->spanForce[k] - m.spanForce[k]);
      m.spanSpeedStd[k] += square(r->spanSpeed[k] - m.spanSpeed[k]);
    }
  }
  for (int k = 0; k < kMaxPulleys; ++k) {
    m.omegaStd[k] = std::sqrt(m.omegaStd[k] / n);
    m.torqueStd[k] = std::sqrt(m.torqueStd[k] / n);
    m.spanForceStd[k] = std::sqrt(m.spanForceStd[k] / n);
    m.spanSpeedStd[k] = std::sqrt(m.spanSpeedStd[k] / n);
  }
  return m;
}


// The drawn belt path at the end-time centres (floating pulleys and tensioners move away from the
// path drawn at the start): spans' directions and where the belt arrives on each pulley.
bool endTimePath(const Scenario& sc, const TimeRow& last, int n, BeltPath<kMaxPulleys>& path) {
  PathCircle circles[kMaxPulleys];
  for (int p = 0; p < n; ++p) {
    circles[p] = pathCircleOf(sc, p);
    circles[p].centre = Vector2(last.centre[p][0], last.centre[p][1]);
  }
  return buildBeltPath(circles, n, path).ok();
}

// Wrap angle phi of a profile sample on pulley p, measured from where the belt arrives on it (in
// s: the start of its arc) in the sense of its sweep: the angle of the sample's end-time position
// about the end-time centre. The material estimate (s - s0) / R, which counts reference arc length
// and so runs ahead or behind by the belt's strain (lambda from 0.97 to 1.03 on the paper's drive)
// and by the node-quantized offset of s, only picks the turn (the 2 pi branch) of the angle.
struct ArcAngle {
  bool geometric = false;
  Vector2 centre = Vector2::Zero();
  double startAngle = 0.0, direction = 1.0, s0 = 0.0, R = 1.0;
  double operator()(const ProfileRow& row) const {
    const double material = (row.s - s0) / R;
    if (!geometric) return material;
    const double twoPi = 2.0 * std::acos(-1.0);
    const double raw = direction * (std::atan2(row.y - centre(1), row.x - centre(0)) - startAngle);
    return raw + twoPi * std::round((material - raw) / twoPi);
  }
};

ArcAngle arcAngle(bool pathOk, const BeltPath<kMaxPulleys>& path, int p, double s0, double R) {
  ArcAngle a;
  a.s0 = s0;
  a.R = R;
  a.geometric = pathOk;
  if (pathOk) {
    a.centre = path.circle[p].centre;
    a.startAngle = path.arcStartAngle[p];
    a.direction = path.arcSweep[p] < 0.0 ? -1.0 : 1.0;
  }
  return a;
}


CapstanCheck capstanCheck(const std::vector<ProfileRow>& profile, double mu, const ArcAngle& angle, double startForce,
                          double endForce, int pulley) {
  CapstanCheck c;
  const double tight = std::max(startForce, endForce), slack = std::min(startForce, endForce);
  const double sign = endForce > startForce ? 1.0 : -1.0;
  if (!(mu > 0.0 && slack > 0.0 && tight > slack && angle.R > 0.0)) return c;
  c.wrapAngle = std::log(tight / slack) / mu;
  auto counts = [&](const ProfileRow& row) { return pulley < 0 || row.pulley == pulley; };
  for (const ProfileRow& row : profile) {
    const double phi = angle(row);
    if (phi >= 0.0 && (row.stickSlip == 1 || row.stickSlip == -1) && counts(row))
      c.slipArcAngle = std::max(c.slipArcAngle, phi);
  }
  c.slipArcAngle = std::min(c.slipArcAngle, c.wrapAngle);
  c.errorTheoretical = 0.0;
  c.errorSlipArc = c.slipArcAngle > 0.0 ? 0.0 : -1.0;  // no slip arc: nothing to check (-1)
  for (const ProfileRow& row : profile) {
    const double phi = angle(row);
    if (phi < 0.0 || phi > c.wrapAngle || !counts(row)) continue;
    const double law = startForce * std::exp(sign * mu * phi);
    const double error = std::fabs(row.axialForce - law) / law;
    c.errorTheoretical = std::max(c.errorTheoretical, error);
    if (c.slipArcAngle > 0.0 && phi <= c.slipArcAngle) c.errorSlipArc = std::max(c.errorSlipArc, error);
  }
  return c;
}

// The capstan check on the tail window's mean force (WrapBins), with the tail means of the span
// forces: in each bin with samples, the mean of F exp(-+mu phi) against F_start (the law's sign as
// in capstanCheck). The slip arc: up to the last bin in [0, wrap angle] in which most samples
// slipped.
CapstanCheck capstanTailCheck(const WrapBins& wrap, int p, double mu, double startForce, double endForce) {
  CapstanCheck c;
  const double tight = std::max(startForce, endForce), slack = std::min(startForce, endForce);
  const bool growing = endForce > startForce;
  if (!(mu > 0.0 && slack > 0.0 && tight > slack) || p < 0 || p >= kMaxPulleys || wrap.bins[p].empty()) return c;
  c.wrapAngle = std::log(tight / slack) / mu;
  const std::vector<WrapBins::Bin>& bins = wrap.bins[p];
  for (int k = 0; k < WrapBins::kCount; ++k) {
    const double phi = WrapBins::centre(k);
    if (phi >= 0.0 && phi <= c.wrapAngle && bins[k].count > 0 && 2 * bins[k].slipping > bins[k].count)
      c.slipArcAngle = phi;
  }
  c.errorTheoretical = 0.0;
  c.errorSlipArc = c.slipArcAngle > 0.0 ? 0.0 : -1.0;  // no slip arc: nothing to check (-1)
  for (int k = 0; k < WrapBins::kCount; ++k) {
    const double phi = WrapBins::centre(k);
    if (phi < 0.0 || phi > c.wrapAngle || bins[k].count == 0) continue;
    const double start = (growing ? bins[k].decaying : bins[k].growing) / static_cast<double>(bins[k].count);
    const double error = std::fabs(start - startForce) / startForce;
    c.errorTheoretical = std::max(c.errorTheoretical, error);
    if (c.slipArcAngle > 0.0 && phi <= c.slipArcAngle) c.errorSlipArc = std::max(c.errorSlipArc, error);
  }
  return c;
}

// The capstan check over pulley p's own arc: the belt arrives there (in s) from span p-1 and
// leaves on span p.
CapstanCheck pulleyCapstanCheck(const RunInfo& info, const std::vector<ProfileRow>& profile, const TimeRow& last, int p,
                                bool pathOk, const BeltPath<kMaxPulleys>& path) {
  const int n = info.pulleys;
  return capstanCheck(profile, last.frictionCoefficient[p],
                      arcAngle(pathOk, path, p, info.arcStart[p], info.centrelineRadius[p]),
                      last.spanForce[(p + n - 1) % n], last.spanForce[p], p);
}



SpanDirections spanDirections(bool pathOk, const BeltPath<kMaxPulleys>& path, int n) {
  SpanDirections d;
  d.ok = pathOk;
  for (int k = 0; d.ok && k < n; ++k) d.direction[k] = (path.arrival[k] - path.departure[k]) / path.spanLength[k];
  return d;
}


PulleyArcs pulleyArcs(const std::vector<ProfileRow>& profile) {
  PulleyArcs a;
  for (const ProfileRow& row : profile) {
    if (row.pulley < 0 || row.pulley >= kMaxPulleys) continue;
    a.contact[row.pulley] += row.segmentLength;
    if (row.stickSlip == 1 || row.stickSlip == -1) a.slip[row.pulley] += row.segmentLength;
  }
  return a;
}

}  // namespace

RunAnalysis analyseRun(const RunInfo& info, const std::vector<TimeRow>& rows, const std::vector<ProfileRow>& profile,
                       std::vector<float> stepMicros) {
  const Scenario& sc = *info.scenario;
  const int n = info.pulleys;
  RunAnalysis a;
  a.last = rows.empty() ? TimeRow{} : rows.back();
  const TimeRow& last = a.last;
  // Each pulley's friction coefficient at the end (an injected fault may have changed it).
  const double* mu = last.frictionCoefficient;
  for (int k = 1; k < n; ++k) {
    if (last.spanForce[k] > last.spanForce[a.tight]) a.tight = k;
    if (last.spanForce[k] < last.spanForce[a.slack]) a.slack = k;
  }
  a.arcs = pulleyArcs(profile);
  a.tail = tailMeans(rows);
  a.endPathOk = endTimePath(sc, last, n, a.endPath);
  a.capstan = capstanCheck(profile, mu[0], arcAngle(a.endPathOk, a.endPath, 0, info.driverArcStart, info.driverRadius),
                           last.spanForce[a.slack], last.spanForce[a.tight], -1);
  // P1 on the tail window: the span arriving on it (n - 1) and the one leaving (0), as above.
  a.capstanTail = capstanTailCheck(info.tailBins, 0, mu[0], a.tail.spanForce[n - 1], a.tail.spanForce[0]);
  for (int p = 0; p < n; ++p) {
    a.hasCapstan[p] = turnsWithBelt(sc, p);
    if (!a.hasCapstan[p]) continue;
    a.pulleyCapstan[p] = pulleyCapstanCheck(info, profile, last, p, a.endPathOk, a.endPath);
    a.pulleyCapstanTail[p] =
        capstanTailCheck(info.tailBins, p, mu[p], a.tail.spanForce[(p + n - 1) % n], a.tail.spanForce[p]);
  }
  a.directions = spanDirections(a.endPathOk, a.endPath, n);
  std::sort(stepMicros.begin(), stepMicros.end());
  a.stepMicrosMedian = stepMicros.empty() ? 0.0 : stepMicros[stepMicros.size() / 2];
  a.stepMicrosMax = stepMicros.empty() ? 0.0 : stepMicros.back();
  return a;
}

}  // namespace beltsim::host
