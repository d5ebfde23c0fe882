#include "output_files.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_analysis.hpp"

namespace beltsim::host {

namespace fs = std::filesystem;

namespace {

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
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

bool isTensioner(const Scenario& sc, int p) { return sc.pulleys[p].circle.kind == PulleyKind::kTensionerArm; }

std::string jsonText(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) >= 0x20) out += c;
  }
  return out + "\"";
}

// The CSV rows of every sample (numbers as %.10g).
bool writeTimeseries(const std::string& directory, const Scenario& sc, int n, const std::vector<TimeRow>& rows,
                     std::string& error) {
  std::ofstream f(directory + "/timeseries.csv");
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
  if (sc.eulerianMesh) f << ",material_travelled";
  // Injected faults (docs/injected_faults.md): each pulley's friction coefficient and the tables acting.
  const bool faulted = sc.faults.count > 0;
  const bool wet = sc.faults.hasKind(InjectedFaultKind::kFriction);
  const bool worn = sc.faults.hasKind(InjectedFaultKind::kBeltStiffness);
  // A tensioner's spring rate and a pulley's bearing drag: the pulleys a table names.
  auto named = [&](InjectedFaultKind kind, int p) {
    for (int k = 0; k < sc.faults.count; ++k)
      if (sc.faults.fault[k].kind == kind && sc.faults.fault[k].pulley == p) return true;
    return false;
  };
  if (faulted) {
    for (int p = 0; p < n && wet; ++p) f << ",friction_p" << p + 1;
    if (worn) f << ",axial_stiffness";
    for (int p = 0; p < n; ++p)
      if (named(InjectedFaultKind::kTensionerSpring, p)) f << ",spring_rate_p" << p + 1;
    for (int p = 0; p < n; ++p)
      if (named(InjectedFaultKind::kBearingDrag, p)) f << ",bearing_drag_p" << p + 1;
    f << ",injected_faults";
  }
  // The emulated sensors (docs/injected_faults.md, "Sensors"): load_cell_k reads span_force_<k-1>.
  const bool sensing = sensorsWanted(sc);
  for (int p = 0; p < n && sensing; ++p) f << ",encoder_p" << p + 1;
  for (int k = 0; k < n && sensing; ++k) f << ",load_cell_" << k + 1;
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
    if (sc.eulerianMesh) f << ',' << number(r.materialTravelled);
    if (faulted) {
      for (int p = 0; p < n && wet; ++p) f << ',' << number(r.frictionCoefficient[p]);
      if (worn) f << ',' << number(r.axialStiffness);
      for (int p = 0; p < n; ++p)
        if (named(InjectedFaultKind::kTensionerSpring, p)) f << ',' << number(r.springRate[p]);
      for (int p = 0; p < n; ++p)
        if (named(InjectedFaultKind::kBearingDrag, p)) f << ',' << number(r.bearingDrag[p]);
      f << ',' << r.injectedFaults;
    }
    for (int p = 0; p < n && sensing; ++p) f << ',' << r.encoderCount[p];
    for (int k = 0; k < n && sensing; ++k) f << ',' << number(r.loadCell[k]);
    f << intervalHealthCsv(r.health) << '\n';
  }
  if (!f) {
    error = "cannot write " + directory + "/timeseries.csv";
    return false;
  }
  return true;
}

bool writeProfile(const std::string& directory, const std::vector<ProfileRow>& profile, std::string& error) {
  std::ofstream f(directory + "/belt_profile.csv");
  f << "s,axial_force,axial_velocity,contact_normal_stress,contact_tangential_stress,stick_slip,x,y\n";
  for (const ProfileRow& r : profile) {
    f << number(r.s) << ',' << number(r.axialForce) << ',' << number(r.axialVelocity) << ','
      << number(r.normalStress) << ',' << number(r.tangentialStress) << ',' << r.stickSlip << ',' << number(r.x) << ','
      << number(r.y) << '\n';
  }
  if (!f) {
    error = "cannot write " + directory + "/belt_profile.csv";
    return false;
  }
  return true;
}

std::string capstanJson(const CapstanCheck& c) {
  return "{\"wrap_angle\": " + number(c.wrapAngle) + ", \"slip_arc_angle\": " + number(c.slipArcAngle) +
         ", \"max_rel_error\": " + number(c.errorSlipArc) + ", \"max_rel_error_full_wrap\": " +
         number(c.errorTheoretical) + "}";
}

// summary.json: the run's end state, tail means and ripple, arcs, capstan checks and step health.
bool writeSummary(const std::string& directory, const RunInfo& info, const RunAnalysis& a, std::string& error) {
  const Scenario& sc = *info.scenario;
  const int n = info.pulleys;
  const TimeRow& last = a.last;
  const TailMeans& tail = a.tail;
  const int tight = a.tight, slack = a.slack;
  std::ofstream f(directory + "/summary.json");
  f << "{\n";
  f << "  \"scenario\": \"" << sc.file << "\",\n";
  f << "  \"elements\": " << info.elements << ",\n";
  // The eulerian mesh says so, and how far the belt's material went through it.
  if (sc.eulerianMesh) {
    f << "  \"belt_mesh\": \"eulerian\",\n";
    f << "  \"material_travelled\": " << number(last.materialTravelled) << ",\n";
  }
  // The injected faults as the run applied them (docs/injected_faults.md).
  if (sc.faults.count > 0) {
    f << "  \"injected_faults\": [";
    for (int k = 0; k < sc.faults.count; ++k) {
      const InjectedFault& x = sc.faults.fault[k];
      // The target as the table names it: a span for the load cells, a pulley otherwise (null: all, the belt).
      f << (k > 0 ? ", " : "") << "{\"kind\": \"" << injectedFaultKindName(x.kind) << "\", \""
        << (isLoadCellFault(x.kind) ? "span" : "pulley") << "\": "
        << (x.pulley < 0 ? std::string("null") : std::to_string(x.pulley + 1))
        << ", \"start\": " << number(x.start) << ", \"end\": " << (x.hasEnd ? number(x.end) : std::string("null"))
        << ", \"ramp\": " << number(x.ramp) << ", \"value\": " << number(x.value);
      if (x.kind == InjectedFaultKind::kBearingDrag) f << ", \"viscous\": " << number(x.viscous);
      if (isSeededFault(x.kind)) f << ", \"seed\": " << x.seed;
      // A live table waits for a test bench, which beltsim run has not: it never acts here.
      if (x.live) f << ", \"live\": true, \"min\": " << number(x.liveMin) << ", \"max\": " << number(x.liveMax);
      f << ", \"line\": " << sc.faultLine[k] << "}";
    }
    f << "],\n";
  }
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
    f << ", \"contact_arc\": " << number(a.arcs.contact[p]) << ", \"slip_arc\": " << number(a.arcs.slip[p])
      << ", \"slip_arc_angle\": " << number(R > 0.0 ? a.arcs.slip[p] / R : 0.0);
    if (a.hasCapstan[p]) {
      f << ", \"capstan\": " << capstanJson(a.pulleyCapstan[p]);
      f << ", \"capstan_tail\": " << capstanJson(a.pulleyCapstanTail[p]);
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
    if (a.directions.ok)
      f << ", \"direction\": [" << number(a.directions.direction[k](0)) << ", " << number(a.directions.direction[k](1)) << "]";
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
  f << "  \"capstan_wrap_angle\": " << number(a.capstan.wrapAngle) << ",\n";
  f << "  \"capstan_slip_arc_angle\": " << number(a.capstan.slipArcAngle) << ",\n";
  f << "  \"capstan_max_rel_error\": " << number(a.capstan.errorSlipArc) << ",\n";
  f << "  \"capstan_max_rel_error_full_wrap\": " << number(a.capstan.errorTheoretical) << ",\n";
  f << "  \"capstan_tail_wrap_angle\": " << number(a.capstanTail.wrapAngle) << ",\n";
  f << "  \"capstan_tail_slip_arc_angle\": " << number(a.capstanTail.slipArcAngle) << ",\n";
  f << "  \"capstan_tail_max_rel_error\": " << number(a.capstanTail.errorSlipArc) << ",\n";
  f << "  \"capstan_tail_max_rel_error_full_wrap\": " << number(a.capstanTail.errorTheoretical) << ",\n";
  f << "  \"static_converged\": " << (info.staticConverged ? "true" : "false") << ",\n";
  f << "  \"static_residual\": " << number(info.staticResidual) << ",\n";
  // Node 0 (where the belt leaves pulley 1) has its x locked in the static solve (docs/model_start_and_benchmark.md §8.3):
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
  f << "  \"step_time_us_median\": " << number(a.stepMicrosMedian) << ",\n";
  f << "  \"step_time_us_max\": " << number(a.stepMicrosMax) << "\n";
  f << "}\n";
  if (!f) {
    error = "cannot write " + directory + "/summary.json";
    return false;
  }
  return true;
}

// plots.gp: the time series, the axial force with P1's capstan curve, the contact stresses.
void writePlotScript(const std::string& directory, const RunInfo& info, const RunAnalysis& a) {
  const Scenario& sc = *info.scenario;
  const int n = info.pulleys;
  const TimeRow& last = a.last;
  const double wrapAngle = a.capstan.wrapAngle;
  const int slack = a.slack;
  std::ofstream g(directory + "/plots.gp");
  const double s0 = info.driverArcStart, R = info.driverRadius, mu = last.frictionCoefficient[0];
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
  if (!writeTimeseries(directory_, *info.scenario, info.pulleys, rows, error)) return false;
  if (!writeProfile(directory_, profile, error)) return false;
  const RunAnalysis analysis = analyseRun(info, rows, profile, std::move(stepMicros));
  if (!writeSummary(directory_, info, analysis, error)) return false;
  if (!plots) return true;
  writePlotScript(directory_, info, analysis);
  const std::string command = "cd '" + directory_ + "' && gnuplot plots.gp > plots.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "warning: gnuplot failed or is missing (Debian package gnuplot-nox); see %s/plots.log\n",
                 directory_.c_str());
  }
  return true;
}

}  // namespace beltsim::host
