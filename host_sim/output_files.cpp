#include "output_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "beltsim/system/belt_geometry.hpp"

namespace beltsim::host {

namespace fs = std::filesystem;

namespace {

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

// Means over the last 0.15 s (the paper's Table 4 averages over about that window), or over
// the last 10 % of a shorter run, and the population standard deviations about them over the same
// rows: the ripple a coarse mesh puts on the steady state (elements passing the pulleys;
// docs/validation_and_convergence.md, "Ripple of coarse meshes"), which the means average out.
struct TailMeans {
  double omega[kMaxPulleys] = {}, torque[kMaxPulleys] = {}, beltTorque[kMaxPulleys] = {};
  double spanForce[kMaxPulleys] = {}, spanSpeed[kMaxPulleys] = {};
  double omegaStd[kMaxPulleys] = {}, torqueStd[kMaxPulleys] = {};
  double spanForceStd[kMaxPulleys] = {}, spanSpeedStd[kMaxPulleys] = {};
  double window = 0.0;
};

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

// Standard deviation over the magnitude of the mean (0 where the mean is 0).
double relativeRipple(double deviation, double mean) { return mean != 0.0 ? deviation / std::fabs(mean) : 0.0; }

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

// Largest relative deviation of the axial force over a pulley's slip arc from the capstan law
// F(phi) = F_start exp(+-mu phi) (docs/model.md §9.6 check 4; Euler-Eytelwein), phi the wrap angle from the
// start s0 of the pulley's contact arc (ArcAngle), F_start the force of the span arriving there and
// F_end that of the span leaving the arc's other end; the sign makes F run from F_start towards
// F_end, and the arc over which the law reaches F_end is ln(F_tight / F_slack) / mu. The belt runs
// towards decreasing s (pulleys turning counter-clockwise), so s0 is where it leaves the pulley, the
// end at which creep theory puts the slip arc (the stick arc follows, next to the entry). Two
// ranges: the measured slip arc (segments in a slip state: where the law applies) and the
// theoretical arc phi in [0, ln(F_tight/F_slack)/mu], whose last few per cent lie in the transition
// to the stick zone (on P1 of the paper's drive about 645 N against 665 N at its end). `pulley` >= 0
// counts only the segments in contact with that pulley; P1's top-level check counts every segment
// (a sample of a span has phi < 0 before the arc and phi > the wrap angle after it).
struct CapstanCheck {
  double wrapAngle = 0.0;          // ln(F_tight / F_slack) / mu, rad
  double slipArcAngle = 0.0;       // measured slip arc, rad
  double errorSlipArc = -1.0;      // max relative error over the measured slip arc
  double errorTheoretical = -1.0;  // max relative error over [0, wrapAngle]
};

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
  return capstanCheck(profile, info.scenario->contactPerArea.frictionCoefficient,
                      arcAngle(pathOk, path, p, info.arcStart[p], info.centrelineRadius[p]),
                      last.spanForce[(p + n - 1) % n], last.spanForce[p], p);
}

// Pulleys that turn with the belt against a drive or load: the capstan check is written for them.
bool turnsWithBelt(const Scenario& sc, int p) {
  const CircleKind kind = sc.pulleys[p].circle.kind;
  return kind == CircleKind::kSpeedDriven || kind == CircleKind::kTorqueDriven || kind == CircleKind::kFixedAxis;
}

// Unit direction of each span at the end: the common tangent of its two pulleys at their
// end-time centres (floating pulleys and tensioners move away from the drawn path).
struct SpanDirections {
  bool ok = false;
  Vector2 direction[kMaxPulleys];
};

SpanDirections spanDirections(bool pathOk, const BeltPath<kMaxPulleys>& path, int n) {
  SpanDirections d;
  d.ok = pathOk;
  for (int k = 0; d.ok && k < n; ++k) d.direction[k] = (path.arrival[k] - path.departure[k]) / path.spanLength[k];
  return d;
}

// Contact and slip arcs of each pulley in the end-of-run profile: segments in contact with it,
// and those of them in a slip state, times the segment length.
struct PulleyArcs {
  double contact[kMaxPulleys] = {};
  double slip[kMaxPulleys] = {};
};

PulleyArcs pulleyArcs(const RunInfo& info, const std::vector<ProfileRow>& profile) {
  PulleyArcs a;
  for (const ProfileRow& row : profile) {
    if (row.pulley < 0 || row.pulley >= kMaxPulleys) continue;
    a.contact[row.pulley] += info.segmentLength;
    if (row.stickSlip == 1 || row.stickSlip == -1) a.slip[row.pulley] += info.segmentLength;
  }
  return a;
}

// Columns of timeseries.csv, 1-based as gnuplot counts them.
struct Columns {
  int pulleys;
  int omega(int p) const { return 2 + pulleys + p; }
  int torque(int p) const { return 2 + 2 * pulleys + p; }
  int beltTorque(int p) const { return 2 + 3 * pulleys + p; }
  // Between them: hub_force_x, hub_force_y, centre_x, centre_y (n columns each).
  int spanForce(int k) const { return 2 + 8 * pulleys + k; }
  // Tensioner j (0-based among the tensioners; m of them) after span speeds.
  int armAngle(int j) const { return 2 + 10 * pulleys + j; }
  int armTorque(int j, int m) const { return 2 + 10 * pulleys + m + j; }
};

bool isTensioner(const Scenario& sc, int p) { return sc.pulleys[p].circle.kind == CircleKind::kTensionerArm; }

std::string jsonText(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

}  // namespace

bool OutputFiles::open(const std::string& directory, std::string& error) {
  std::error_code ec;
  if (fs::exists(directory, ec)) {
    if (!fs::is_directory(directory, ec)) {
      error = "output '" + directory + "' exists and is not a folder";
      return false;
    }
    if (!fs::is_empty(directory, ec)) {
      error = "output folder '" + directory + "' is not empty; remove it or choose another (old files are never mixed with new ones)";
      return false;
    }
  }
  fs::create_directories(directory, ec);
  if (ec) {
    error = "cannot create output folder '" + directory + "': " + ec.message();
    return false;
  }
  directory_ = directory;
  return true;
}

bool OutputFiles::writeAll(const RunInfo& info, const std::vector<TimeRow>& rows, const std::vector<ProfileRow>& profile,
                           std::vector<float> stepMicros, bool plots, std::string& error) {
  const Scenario& sc = *info.scenario;
  const int n = info.pulleys;
  // --- timeseries.csv ---
  {
    std::ofstream f(directory_ + "/timeseries.csv");
    // Pulley p is "p<p+1>" (travel order), span k runs from pulley k to pulley k+1.
    f << "time";
    const char* perPulley[] = {"angle_p", "omega_p", "torque_p", "belt_torque_p", "hub_force_x_p", "hub_force_y_p"};
    for (const char* name : perPulley)
      for (int p = 0; p < n; ++p) f << ',' << name << p + 1;
    for (const char* name : {"centre_x_p", "centre_y_p"})
      for (int p = 0; p < n; ++p) f << ',' << name << p + 1;
    for (int k = 0; k < n; ++k) f << ",span_force_" << k;
    for (int k = 0; k < n; ++k) f << ",span_speed_" << k;
    // Tensioner arms only (the other pulleys have none).
    for (const char* name : {"arm_angle_p", "arm_torque_p"})
      for (int p = 0; p < n; ++p)
        if (isTensioner(sc, p)) f << ',' << name << p + 1;
    f << kIntervalHealthColumns << '\n';
    for (const TimeRow& r : rows) {
      f << number(r.time);
      for (const double* v : {r.angle, r.omega, r.torque, r.beltTorque})
        for (int p = 0; p < n; ++p) f << ',' << number(v[p]);
      for (int c = 0; c < 2; ++c)
        for (int p = 0; p < n; ++p) f << ',' << number(r.hubForce[p][c]);
      for (int c = 0; c < 2; ++c)
        for (int p = 0; p < n; ++p) f << ',' << number(r.centre[p][c]);
      for (const double* v : {r.spanForce, r.spanSpeed})
        for (int k = 0; k < n; ++k) f << ',' << number(v[k]);
      for (const double* v : {r.armAngle, r.armTorque})
        for (int p = 0; p < n; ++p)
          if (isTensioner(sc, p)) f << ',' << number(v[p]);
      f << intervalHealthCsv(r.health) << '\n';
    }
    if (!f) {
      error = "cannot write " + directory_ + "/timeseries.csv";
      return false;
    }
  }
  // --- belt_profile.csv ---
  {
    std::ofstream f(directory_ + "/belt_profile.csv");
    f << "s,axial_force,axial_velocity,contact_normal_stress,contact_tangential_stress,stick_slip,x,y\n";
    for (const ProfileRow& r : profile) {
      f << number(r.s) << ',' << number(r.axialForce) << ',' << number(r.axialVelocity) << ','
        << number(r.normalStress) << ',' << number(r.tangentialStress) << ',' << r.stickSlip << ',' << number(r.x) << ','
        << number(r.y) << '\n';
    }
    if (!f) {
      error = "cannot write " + directory_ + "/belt_profile.csv";
      return false;
    }
  }
  // --- summary.json ---
  const TimeRow last = rows.empty() ? TimeRow{} : rows.back();
  // Tight and slack spans: the largest and smallest span force at the end.
  int tight = 0, slack = 0;
  for (int k = 1; k < n; ++k) {
    if (last.spanForce[k] > last.spanForce[tight]) tight = k;
    if (last.spanForce[k] < last.spanForce[slack]) slack = k;
  }
  const PulleyArcs arcs = pulleyArcs(info, profile);
  const TailMeans tail = tailMeans(rows);
  BeltPath<kMaxPulleys> endPath;
  const bool endPathOk = endTimePath(sc, last, n, endPath);
  const CapstanCheck capstan =
      capstanCheck(profile, sc.contactPerArea.frictionCoefficient,
                   arcAngle(endPathOk, endPath, 0, info.driverArcStart, info.driverRadius), last.spanForce[slack],
                   last.spanForce[tight], -1);
  // P1 on the tail window: the span arriving on it (n - 1) and the one leaving (0), as above.
  const CapstanCheck capstanTail = capstanTailCheck(info.tailBins, 0, sc.contactPerArea.frictionCoefficient,
                                                    tail.spanForce[n - 1], tail.spanForce[0]);
  const SpanDirections directions = spanDirections(endPathOk, endPath, n);
  const double wrapAngle = capstan.wrapAngle;
  std::sort(stepMicros.begin(), stepMicros.end());
  const double median = stepMicros.empty() ? 0.0 : stepMicros[stepMicros.size() / 2];
  const double maximum = stepMicros.empty() ? 0.0 : stepMicros.back();
  {
    std::ofstream f(directory_ + "/summary.json");
    f << "{\n";
    f << "  \"scenario\": \"" << sc.file << "\",\n";
    f << "  \"elements\": " << info.elements << ",\n";
    f << "  \"segments_per_element\": " << sc.segmentsPerElement << ",\n";
    f << "  \"step_size\": " << number(sc.stepSize) << ",\n";
    f << "  \"stepping\": \"" << (sc.integrator.stepping == Stepping::kFixedCost ? "fixed_cost" : "reference") << "\",\n";
    f << "  \"end_time\": " << number(last.time) << ",\n";
    f << "  \"omega\": [";
    for (int p = 0; p < n; ++p) f << (p > 0 ? ", " : "") << number(last.omega[p]);
    f << "],\n";
    // Per pulley and per span at the end and as tail means; the keys below them name P1 the
    // drive and P2 the load (the paper's drive; for other drives, simply pulleys 1 and 2).
    f << "  \"pulleys\": [\n";
    for (int p = 0; p < n; ++p) {
      const double R = info.centrelineRadius[p];
      f << "    {\"name\": " << jsonText(sc.pulleys[p].name) << ", \"kind\": " << jsonText(sc.pulleys[p].kind)
        << ", \"omega\": " << number(last.omega[p]) << ", \"angle\": " << number(last.angle[p])
        << ", \"torque\": " << number(last.torque[p]) << ", \"belt_torque\": " << number(last.beltTorque[p])
        << ", \"hub_force\": [" << number(last.hubForce[p][0]) << ", " << number(last.hubForce[p][1])
        << "], \"centre\": [" << number(last.centre[p][0]) << ", " << number(last.centre[p][1]) << "]";
      if (isTensioner(sc, p)) {
        f << ", \"arm_angle\": " << number(last.armAngle[p]) << ", \"arm_torque\": " << number(last.armTorque[p])
          << ", \"arm_hub_load\": " << number(std::hypot(last.hubForce[p][0], last.hubForce[p][1]));
      }
      f << ", \"contact_arc\": " << number(arcs.contact[p]) << ", \"slip_arc\": " << number(arcs.slip[p])
        << ", \"slip_arc_angle\": " << number(R > 0.0 ? arcs.slip[p] / R : 0.0);
      if (turnsWithBelt(sc, p)) {
        const CapstanCheck c = pulleyCapstanCheck(info, profile, last, p, endPathOk, endPath);
        f << ", \"capstan\": {\"wrap_angle\": " << number(c.wrapAngle) << ", \"slip_arc_angle\": "
          << number(c.slipArcAngle) << ", \"max_rel_error\": " << number(c.errorSlipArc)
          << ", \"max_rel_error_full_wrap\": " << number(c.errorTheoretical) << "}";
        const CapstanCheck m = capstanTailCheck(info.tailBins, p, sc.contactPerArea.frictionCoefficient,
                                                tail.spanForce[(p + n - 1) % n], tail.spanForce[p]);
        f << ", \"capstan_tail\": {\"wrap_angle\": " << number(m.wrapAngle) << ", \"slip_arc_angle\": "
          << number(m.slipArcAngle) << ", \"max_rel_error\": " << number(m.errorSlipArc)
          << ", \"max_rel_error_full_wrap\": " << number(m.errorTheoretical) << "}";
      }
      f << ", \"tail_mean\": {\"omega\": " << number(tail.omega[p]) << ", \"torque\": " << number(tail.torque[p])
        << ", \"belt_torque\": " << number(tail.beltTorque[p]) << "}, \"tail_std\": {\"omega\": "
        << number(tail.omegaStd[p]) << ", \"torque\": " << number(tail.torqueStd[p]) << "}}" << (p + 1 < n ? "," : "")
        << "\n";
    }
    f << "  ],\n";
    f << "  \"spans\": [\n";
    for (int k = 0; k < n; ++k) {
      f << "    {\"from\": " << jsonText(sc.pulleys[k].name) << ", \"to\": " << jsonText(sc.pulleys[(k + 1) % n].name)
        << ", \"force\": " << number(last.spanForce[k]) << ", \"speed\": " << number(last.spanSpeed[k]);
      if (directions.ok)
        f << ", \"direction\": [" << number(directions.direction[k](0)) << ", " << number(directions.direction[k](1)) << "]";
      f << ", \"tail_mean_force\": " << number(tail.spanForce[k]) << ", \"tail_std_force\": "
        << number(tail.spanForceStd[k]) << ", \"tail_std_speed\": " << number(tail.spanSpeedStd[k]) << "}"
        << (k + 1 < n ? "," : "") << "\n";
    }
    f << "  ],\n";
    f << "  \"drive_torque\": " << number(std::fabs(last.torque[0])) << ",\n";
    f << "  \"load_torque\": " << number(std::fabs(last.beltTorque[1])) << ",\n";
    f << "  \"applied_load_torque\": " << number(std::fabs(last.torque[1])) << ",\n";
    f << "  \"span_force_tight\": " << number(last.spanForce[tight]) << ",\n";
    f << "  \"span_force_slack\": " << number(last.spanForce[slack]) << ",\n";
    f << "  \"span_speed_tight\": " << number(last.spanSpeed[tight]) << ",\n";
    f << "  \"span_speed_slack\": " << number(last.spanSpeed[slack]) << ",\n";
    f << "  \"tail_window\": " << number(tail.window) << ",\n";
    f << "  \"tail_mean\": {\"omega_p2\": " << number(tail.omega[1]) << ", \"drive_torque\": "
      << number(std::fabs(tail.torque[0])) << ", \"load_torque\": " << number(std::fabs(tail.beltTorque[1]))
      << ", \"span_force_tight\": " << number(tail.spanForce[tight]) << ", \"span_force_slack\": "
      << number(tail.spanForce[slack]) << ", \"span_speed_tight\": " << number(tail.spanSpeed[tight])
      << ", \"span_speed_slack\": " << number(tail.spanSpeed[slack]) << "},\n";
    f << "  \"tail_ripple\": {\"omega_p2\": " << number(relativeRipple(tail.omegaStd[1], tail.omega[1]))
      << ", \"drive_torque\": " << number(relativeRipple(tail.torqueStd[0], tail.torque[0]))
      << ", \"span_force_tight\": " << number(relativeRipple(tail.spanForceStd[tight], tail.spanForce[tight]))
      << ", \"span_force_slack\": " << number(relativeRipple(tail.spanForceStd[slack], tail.spanForce[slack]))
      << ", \"span_speed_tight\": " << number(relativeRipple(tail.spanSpeedStd[tight], tail.spanSpeed[tight]))
      << ", \"span_speed_slack\": " << number(relativeRipple(tail.spanSpeedStd[slack], tail.spanSpeed[slack]))
      << "},\n";
    f << "  \"capstan_wrap_angle\": " << number(wrapAngle) << ",\n";
    f << "  \"capstan_slip_arc_angle\": " << number(capstan.slipArcAngle) << ",\n";
    f << "  \"capstan_max_rel_error\": " << number(capstan.errorSlipArc) << ",\n";
    f << "  \"capstan_max_rel_error_full_wrap\": " << number(capstan.errorTheoretical) << ",\n";
    f << "  \"capstan_tail_wrap_angle\": " << number(capstanTail.wrapAngle) << ",\n";
    f << "  \"capstan_tail_slip_arc_angle\": " << number(capstanTail.slipArcAngle) << ",\n";
    f << "  \"capstan_tail_max_rel_error\": " << number(capstanTail.errorSlipArc) << ",\n";
    f << "  \"capstan_tail_max_rel_error_full_wrap\": " << number(capstanTail.errorTheoretical) << ",\n";
    f << "  \"static_converged\": " << (info.staticConverged ? "true" : "false") << ",\n";
    f << "  \"static_residual\": " << number(info.staticResidual) << ",\n";
    // Node 0 (where the belt leaves pulley 1) has its x locked in the static solve (docs/model.md §8.3):
    // the force that lock applies to the belt, part of the static free body around pulley 1.
    f << "  \"static_lock_force\": [" << number(info.staticLockForce) << ", 0],\n";
    f << "  \"steps\": " << info.steps << ",\n";
    f << "  \"newton_iterations_max\": " << info.totals.all.newtonIterations << ",\n";
    f << "  \"pns_iterations_max\": " << info.totals.all.pnsIterations << ",\n";
    f << "  \"residual_norm_max\": " << number(info.totals.all.residualNorm) << ",\n";
    f << "  \"pns_error_max\": " << number(info.totals.all.pnsError) << ",\n";
    f << "  \"nonconverged_steps\": " << info.totals.all.flaggedSteps << ",\n";
    f << "  \"newton_nonconverged_steps\": " << info.totals.newtonNotConverged << ",\n";
    f << "  \"pns_nonconverged_steps\": " << info.totals.pnsNotConverged << ",\n";
    f << "  \"faulted\": " << (info.totals.faulted ? "true" : "false") << ",\n";
    f << "  \"fault_reason\": " << jsonText(info.totals.faultReason) << ",\n";
    f << "  \"wall_time_s\": " << number(info.wallTime) << ",\n";
    f << "  \"step_time_us_median\": " << number(median) << ",\n";
    f << "  \"step_time_us_max\": " << number(maximum) << "\n";
    f << "}\n";
    if (!f) {
      error = "cannot write " + directory_ + "/summary.json";
      return false;
    }
  }
  if (!plots) return true;
  // --- plots (gnuplot) ---
  {
    std::ofstream g(directory_ + "/plots.gp");
    const double s0 = info.driverArcStart, R = info.driverRadius, mu = sc.contactPerArea.frictionCoefficient;
    g << "set datafile separator ','\nset terminal pngcairo size 1000,600\nset grid\nset key inside top center opaque box\n";
    const Columns col{n};
    auto name = [&](int p) {  // a gnuplot '...' string: a quote is written twice
      std::string title = "P" + std::to_string(p + 1) + " ";
      for (char c : sc.pulleys[p].name) title += c == '\'' ? std::string("''") : std::string(1, c);
      return title;
    };
    g << "set output 'pulley_speeds.png'\nset title 'Pulley speeds'\nset xlabel 't [s]'\nset ylabel 'omega [rad/s]'\nplot ";
    for (int p = 0; p < n; ++p)
      g << (p > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:" << col.omega(p) << " with lines title '" << name(p) << "'";
    g << "\nset output 'torques.png'\nset title 'Torques of the drives, loads and axles (solid) and of the belt (dashed)'\n"
         "set ylabel 'torque [N m]'\nplot ";
    for (int p = 0; p < n; ++p) {
      g << (p > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:" << col.torque(p) << " with lines lc " << p + 1
        << " title '" << name(p) << "', '' every ::1 using 1:" << col.beltTorque(p) << " with lines dt 2 lc " << p + 1
        << " notitle";
    }
    g << "\nset output 'span_forces.png'\nset title 'Span forces'\nset ylabel 'N [N]'\nplot ";
    for (int k = 0; k < n; ++k)
      g << (k > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:" << col.spanForce(k) << " with lines title 'span P"
        << k + 1 << "->P" << (k + 1) % n + 1 << "'";
    g << "\n";
    int arms = 0;
    for (int p = 0; p < n; ++p) arms += isTensioner(sc, p) ? 1 : 0;
    if (arms > 0) {
      g << "set output 'tensioner_arms.png'\nset title 'Tensioner arms: angle (solid, left) and arm torque (dashed, "
           "right)'\nset ylabel 'arm angle [rad]'\nset y2label 'torque [N m]'\nset y2tics\nplot ";
      for (int p = 0, j = 0; p < n; ++p) {
        if (!isTensioner(sc, p)) continue;
        g << (j > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:" << col.armAngle(j) << " with lines lc "
          << j + 1 << " title '" << name(p) << "', '' every ::1 using 1:" << col.armTorque(j, arms)
          << " axes x1y2 with lines dt 2 lc " << j + 1 << " notitle";
        ++j;
      }
      g << "\nunset y2tics\nunset y2label\n";
    }
    g << "set output 'axial_force.png'\nset title 'Axial force along the belt at t = " << number(last.time)
      << " s'\nset xlabel 's [m]'\nset ylabel 'N [N]'\n";
    if (wrapAngle > 0.0) {
      g << "capstan(s) = (s >= " << number(s0) << " && s <= " << number(s0 + wrapAngle * R) << ") ? "
        << number(last.spanForce[slack]) << " * exp(" << number(mu) << " * (s - " << number(s0) << ") / " << number(R)
        << ") : 1/0\nset samples 400\n";
      g << "plot 'belt_profile.csv' every ::1 using 1:2 with lines title 'axial force', capstan(x) with lines dt 2 lw 2 "
           "title 'capstan F_2 exp(mu phi) over the P1 slip arc'\n";
    } else {
      g << "plot 'belt_profile.csv' every ::1 using 1:2 with lines title 'axial force'\n";
    }
    g << "set output 'contact_stress.png'\nset title 'Contact stresses along the belt'\nset ylabel 'stress [N/m^2]'\n"
         "plot 'belt_profile.csv' every ::1 using 1:4 with lines title 'normal', '' every ::1 using 1:5 with lines title 'tangential'\n";
  }
  const std::string command = "cd '" + directory_ + "' && gnuplot plots.gp > plots.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "warning: gnuplot failed or is missing (Debian package gnuplot-nox); see %s/plots.log\n",
                 directory_.c_str());
  }
  return true;
}

}  // namespace beltsim::host
