#include "output_files.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace beltsim::host {

namespace fs = std::filesystem;

namespace {

std::string number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

struct TailMeans {
  double driveTorque = 0.0, omegaLoad = 0.0, beltTorqueLoad = 0.0;
  double spanForce[2] = {0.0, 0.0}, spanSpeed[2] = {0.0, 0.0};
  double window = 0.0;
};

// Means over the last 0.15 s (the paper's Table 4 averages over about that window), or over
// the last 10 % of a shorter run.
TailMeans tailMeans(const std::vector<TimeRow>& rows) {
  TailMeans m;
  if (rows.empty()) return m;
  const double end = rows.back().time;
  m.window = std::min(0.15, 0.1 * end);
  int n = 0;
  for (const TimeRow& r : rows) {
    if (r.time < end - m.window - 1e-12) continue;
    m.driveTorque += r.driveTorque;
    m.omegaLoad += r.omega[1];
    m.beltTorqueLoad += r.beltTorqueLoad;
    for (int k = 0; k < 2; ++k) {
      m.spanForce[k] += r.spanForce[k];
      m.spanSpeed[k] += r.spanSpeed[k];
    }
    ++n;
  }
  if (n > 0) {
    m.driveTorque /= n;
    m.omegaLoad /= n;
    m.beltTorqueLoad /= n;
    for (int k = 0; k < 2; ++k) {
      m.spanForce[k] /= n;
      m.spanSpeed[k] /= n;
    }
  }
  return m;
}

// Largest relative deviation of the axial force over P1's slip arc from the capstan law
// F(phi) = F_slack exp(mu phi), phi = (s - s0) / R (spec §9.6 check 4; Euler-Eytelwein), s0 the
// start of P1's contact arc. Two ranges: the measured slip arc (segments on P1 in a slip state:
// where the law applies) and the theoretical arc phi in [0, ln(F_tight/F_slack)/mu], whose last
// few per cent lie in the transition to the stick zone (about 645 N against 665 N at its end).
struct CapstanCheck {
  double wrapAngle = 0.0;          // ln(F_tight / F_slack) / mu, rad
  double slipArcAngle = 0.0;       // measured slip arc, rad
  double errorSlipArc = -1.0;      // max relative error over the measured slip arc
  double errorTheoretical = -1.0;  // max relative error over [0, wrapAngle]
};

CapstanCheck capstanCheck(const RunInfo& info, const std::vector<ProfileRow>& profile, double tight, double slack) {
  CapstanCheck c;
  const double mu = info.scenario->contactPerArea.frictionCoefficient;
  if (!(mu > 0.0 && slack > 0.0 && tight > slack)) return c;
  c.wrapAngle = std::log(tight / slack) / mu;
  for (const ProfileRow& row : profile) {
    const double phi = (row.s - info.driverArcStart) / info.driverRadius;
    if (phi >= 0.0 && (row.stickSlip == 1 || row.stickSlip == -1)) c.slipArcAngle = std::max(c.slipArcAngle, phi);
  }
  c.slipArcAngle = std::min(c.slipArcAngle, c.wrapAngle);
  c.errorSlipArc = c.errorTheoretical = 0.0;
  for (const ProfileRow& row : profile) {
    const double phi = (row.s - info.driverArcStart) / info.driverRadius;
    if (phi < 0.0 || phi > c.wrapAngle) continue;
    const double law = slack * std::exp(mu * phi);
    const double error = std::fabs(row.axialForce - law) / law;
    c.errorTheoretical = std::max(c.errorTheoretical, error);
    if (phi <= c.slipArcAngle) c.errorSlipArc = std::max(c.errorSlipArc, error);
  }
  return c;
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
  // --- timeseries.csv ---
  {
    std::ofstream f(directory_ + "/timeseries.csv");
    f << "time,angle_p1,angle_p2,omega_p1,omega_p2,drive_torque,applied_load_torque,belt_torque_p2,span_force_0,span_force_1,"
         "span_speed_0,span_speed_1,newton_iterations,pns_iterations\n";
    for (const TimeRow& r : rows) {
      f << number(r.time) << ',' << number(r.angle[0]) << ',' << number(r.angle[1]) << ',' << number(r.omega[0]) << ',' << number(r.omega[1]) << ',' << number(r.driveTorque)
        << ',' << number(r.appliedLoadTorque) << ',' << number(r.beltTorqueLoad) << ',' << number(r.spanForce[0])
        << ',' << number(r.spanForce[1]) << ',' << number(r.spanSpeed[0]) << ',' << number(r.spanSpeed[1]) << ','
        << r.newtonIterations << ',' << r.pnsIterations << '\n';
    }
    if (!f) {
      error = "cannot write " + directory_ + "/timeseries.csv";
      return false;
    }
  }
  // --- belt_profile.csv ---
  {
    std::ofstream f(directory_ + "/belt_profile.csv");
    f << "s,axial_force,axial_velocity,contact_normal_stress,contact_tangential_stress,stick_slip\n";
    for (const ProfileRow& r : profile) {
      f << number(r.s) << ',' << number(r.axialForce) << ',' << number(r.axialVelocity) << ','
        << number(r.normalStress) << ',' << number(r.tangentialStress) << ',' << r.stickSlip << '\n';
    }
    if (!f) {
      error = "cannot write " + directory_ + "/belt_profile.csv";
      return false;
    }
  }
  // --- summary.json ---
  const TimeRow last = rows.empty() ? TimeRow{} : rows.back();
  const int tight = last.spanForce[0] >= last.spanForce[1] ? 0 : 1;
  const int slack = 1 - tight;
  const TailMeans tail = tailMeans(rows);
  const CapstanCheck capstan = capstanCheck(info, profile, last.spanForce[tight], last.spanForce[slack]);
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
    f << "  \"end_time\": " << number(last.time) << ",\n";
    f << "  \"omega\": [" << number(last.omega[0]) << ", " << number(last.omega[1]) << "],\n";
    f << "  \"drive_torque\": " << number(std::fabs(last.driveTorque)) << ",\n";
    f << "  \"load_torque\": " << number(std::fabs(last.beltTorqueLoad)) << ",\n";
    f << "  \"applied_load_torque\": " << number(std::fabs(last.appliedLoadTorque)) << ",\n";
    f << "  \"span_force_tight\": " << number(last.spanForce[tight]) << ",\n";
    f << "  \"span_force_slack\": " << number(last.spanForce[slack]) << ",\n";
    f << "  \"span_speed_tight\": " << number(last.spanSpeed[tight]) << ",\n";
    f << "  \"span_speed_slack\": " << number(last.spanSpeed[slack]) << ",\n";
    f << "  \"tail_window\": " << number(tail.window) << ",\n";
    f << "  \"tail_mean\": {\"omega_p2\": " << number(tail.omegaLoad) << ", \"drive_torque\": "
      << number(std::fabs(tail.driveTorque)) << ", \"load_torque\": " << number(std::fabs(tail.beltTorqueLoad))
      << ", \"span_force_tight\": " << number(tail.spanForce[tight]) << ", \"span_force_slack\": "
      << number(tail.spanForce[slack]) << ", \"span_speed_tight\": " << number(tail.spanSpeed[tight])
      << ", \"span_speed_slack\": " << number(tail.spanSpeed[slack]) << "},\n";
    f << "  \"capstan_wrap_angle\": " << number(wrapAngle) << ",\n";
    f << "  \"capstan_slip_arc_angle\": " << number(capstan.slipArcAngle) << ",\n";
    f << "  \"capstan_max_rel_error\": " << number(capstan.errorSlipArc) << ",\n";
    f << "  \"capstan_max_rel_error_full_wrap\": " << number(capstan.errorTheoretical) << ",\n";
    f << "  \"static_converged\": " << (info.staticConverged ? "true" : "false") << ",\n";
    f << "  \"static_residual\": " << number(info.staticResidual) << ",\n";
    f << "  \"steps\": " << info.steps << ",\n";
    f << "  \"newton_iterations_max\": " << info.totals.newtonMax << ",\n";
    f << "  \"pns_iterations_max\": " << info.totals.pnsMax << ",\n";
    f << "  \"nonconverged_steps\": " << info.totals.nonConverged << ",\n";
    f << "  \"newton_nonconverged_steps\": " << info.totals.newtonNotConverged << ",\n";
    f << "  \"pns_nonconverged_steps\": " << info.totals.pnsNotConverged << ",\n";
    f << "  \"faulted\": " << (info.totals.faulted ? "true" : "false") << ",\n";
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
    g << "set output 'pulley_speeds.png'\nset title 'Pulley speeds'\nset xlabel 't [s]'\nset ylabel 'omega [rad/s]'\n"
         "plot 'timeseries.csv' every ::1 using 1:4 with lines title 'P1', '' every ::1 using 1:5 with lines title 'P2'\n";
    g << "set output 'torques.png'\nset title 'Torques'\nset ylabel 'torque [N m]'\n"
         "plot 'timeseries.csv' every ::1 using 1:6 with lines title 'drive torque on P1', "
         "'' every ::1 using 1:8 with lines title 'belt torque on P2', "
         "'' every ::1 using 1:(-$7) with lines title 'applied load torque'\n";
    g << "set output 'span_forces.png'\nset title 'Span forces'\nset ylabel 'N [N]'\n"
         "plot 'timeseries.csv' every ::1 using 1:9 with lines title 'span P1->P2', '' every ::1 using 1:10 with lines title 'span P2->P1'\n";
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
