#include "open_cable_outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace beltsim::host {

namespace {

std::string num(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

const char* endName(CableEnd end) {
  return end == CableEnd::kClamped ? "clamped" : end == CableEnd::kPinned ? "pinned" : "free";
}

// A JSON / gnuplot string body: quotes and backslashes escaped (pulley names are free text).
std::string quoted(const std::string& text, char quote) {
  std::string out;
  for (char c : text) {
    if (c == quote || c == '\\') out += quote == '\'' ? '\'' : '\\';
    out += c;
  }
  return out;
}

bool writeTimeseries(const std::string& path, const Scenario& sc, const std::vector<CableRow>& rows) {
  std::ofstream f(path);
  const int n = static_cast<int>(sc.pulleys.size());
  f << "time";
  // The closed belts' names and order (output_files.cpp).
  for (const char* name : {"angle_p", "omega_p", "torque_p", "hub_force_x_p", "hub_force_y_p", "centre_x_p",
                           "centre_y_p"})
    for (int p = 0; p < n; ++p) f << ',' << name << p + 1;
  f << ",axial_force_start,axial_force_end";
  for (int k : sc.outputNodes) f << ",node_x_" << k << ",node_y_" << k;
  f << kIntervalHealthColumns << '\n';
  for (const CableRow& r : rows) {
    f << num(r.time);
    for (const double* v : {r.angle, r.omega, r.torque})
      for (int p = 0; p < n; ++p) f << ',' << num(v[p]);
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < n; ++p) f << ',' << num(r.hubForce[p][c]);
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < n; ++p) f << ',' << num(r.centre[p][c]);
    f << ',' << num(r.startForce) << ',' << num(r.finishForce);
    for (double x : r.nodes) f << ',' << num(x);
    f << intervalHealthCsv(r.health) << '\n';
  }
  return static_cast<bool>(f);
}

bool writeProfile(const std::string& path, const std::vector<CableProfileRow>& profile) {
  std::ofstream f(path);
  f << "s,x,y,axial_force,axial_velocity,contact_normal_stress,contact_tangential_stress,stick_slip,pulley\n";
  for (const CableProfileRow& r : profile) {
    f << num(r.s) << ',' << num(r.x) << ',' << num(r.y) << ',' << num(r.axialForce) << ',' << num(r.axialVelocity)
      << ',' << num(r.normalStress) << ',' << num(r.tangentialStress) << ',' << r.stickSlip << ',' << r.pulley + 1
      << '\n';
  }
  return static_cast<bool>(f);
}

bool writeSummary(const std::string& path, const CableRunInfo& info, const std::vector<CableRow>& rows,
                  std::vector<float> stepMicros) {
  const Scenario& sc = *info.scenario;
  const CableRow last = rows.empty() ? CableRow{} : rows.back();
  double median = 0.0, maximum = 0.0;
  if (!stepMicros.empty()) {
    std::nth_element(stepMicros.begin(), stepMicros.begin() + stepMicros.size() / 2, stepMicros.end());
    median = stepMicros[stepMicros.size() / 2];
    maximum = *std::max_element(stepMicros.begin(), stepMicros.end());
  }
  std::ofstream f(path);
  f << "{\n  \"scenario\": \"" << quoted(sc.file, '"') << "\",\n  \"title\": \"" << quoted(sc.title, '"') << "\",\n";
  f << "  \"belt\": \"open\",\n  \"elements\": " << sc.elements << ",\n  \"belt_length\": " << num(info.length)
    << ",\n  \"start_end\": \"" << endName(sc.belt.startEnd) << "\",\n  \"finish_end\": \""
    << endName(sc.belt.finishEnd) << "\",\n";
  f << "  \"start\": \"" << (info.startAtRest ? "rest" : "equilibrium") << "\",\n";
  if (!info.startAtRest) {
    f << "  \"static_converged\": " << (info.staticConverged ? "true" : "false") << ",\n  \"static_residual\": "
      << num(info.staticResidual) << ",\n  \"static_newton_iterations\": " << info.staticIterations << ",\n";
  }
  f << "  \"time\": " << num(last.time) << ",\n  \"pulleys\": [";
  for (size_t p = 0; p < sc.pulleys.size(); ++p) {
    f << (p > 0 ? "," : "") << "\n    {\"name\": \"" << quoted(sc.pulleys[p].name, '"') << "\", \"kind\": \""
      << sc.pulleys[p].kind << "\", \"omega\": " << num(last.omega[p]) << ", \"angle\": " << num(last.angle[p])
      << ", \"torque\": " << num(last.torque[p]) << ", \"hub_force\": [" << num(last.hubForce[p][0]) << ", "
      << num(last.hubForce[p][1]) << "], \"centre\": [" << num(last.centre[p][0]) << ", "
      << num(last.centre[p][1]) << "]}";
  }
  f << (sc.pulleys.empty() ? "],\n" : "\n  ],\n");
  f << "  \"nodes\": [";
  for (size_t j = 0; j < sc.outputNodes.size(); ++j) {
    f << (j > 0 ? "," : "") << "\n    {\"index\": " << sc.outputNodes[j] << ", \"position\": ["
      << num(last.nodes.empty() ? 0.0 : last.nodes[2 * j]) << ", " << num(last.nodes.empty() ? 0.0 : last.nodes[2 * j + 1])
      << "]}";
  }
  f << (sc.outputNodes.empty() ? "],\n" : "\n  ],\n");
  f << "  \"axial_force_start\": " << num(last.startForce) << ",\n  \"axial_force_end\": " << num(last.finishForce)
    << ",\n";
  f << "  \"steps\": " << stepMicros.size() << ",\n  \"non_converged_steps\": " << info.totals.all.flaggedSteps
    << ",\n  \"newton_not_converged_steps\": " << info.totals.newtonNotConverged
    << ",\n  \"pns_not_converged_steps\": " << info.totals.pnsNotConverged << ",\n  \"newton_iterations_max\": "
    << info.totals.all.newtonIterations << ",\n  \"pns_iterations_max\": " << info.totals.all.pnsIterations
    << ",\n  \"residual_norm_max\": " << num(info.totals.all.residualNorm)
    << ",\n  \"pns_error_max\": " << num(info.totals.all.pnsError) << ",\n  \"faulted\": "
    << (info.totals.faulted ? "true" : "false") << ",\n  \"fault_reason\": \"" << quoted(info.totals.faultReason, '"')
    << "\",\n  \"wall_time_s\": " << num(info.wallTime)
    << ",\n  \"step_time_us_median\": " << num(median) << ",\n  \"step_time_us_max\": " << num(maximum) << "\n}\n";
  return static_cast<bool>(f);
}

void writePlots(const std::string& directory, const Scenario& sc) {
  std::ofstream g(directory + "/plots.gp");
  const int n = static_cast<int>(sc.pulleys.size());
  const int nodeColumn = 2 + 5 * n + 2;  // 1-based column of node_x of the first output node
  g << "set datafile separator ','\nset terminal pngcairo size 1000,600\nset grid\nset key inside top center opaque box\n";
  g << "set output 'cable_shape.png'\nset title 'Belt at end time'\nset xlabel 'x [m]'\nset ylabel 'y [m]'\n"
       "set size ratio -1\n";
  g << "plot 'belt_profile.csv' every ::1 using 2:3 with linespoints pt 7 ps 0.4 title 'belt'";
  for (int p = 0; p < n; ++p) {  // the pulleys at their drawn centres, as curves (they set the range)
    const PulleyParameters& c = sc.pulleys[p].circle;
    g << ", [t=0:2*pi] '+' using (" << num(c.centre(0)) << " + " << num(c.radius) << " * cos($1)):("
      << num(c.centre(1)) << " + " << num(c.radius) << " * sin($1)) with lines lc rgb 'gray40' title 'P" << p + 1
      << " " << quoted(sc.pulleys[p].name, '\'') << "'";
  }
  g << "\nset size noratio\n";
  if (!sc.outputNodes.empty()) {
    // Displacements from the drawn configuration (x - x0 solid, y - y0 dashed): the positions
    // themselves differ by metres where the motion is millimetres.
    g << "set output 'node_positions.png'\nset title 'Output nodes: displacement from the drawn position (x solid, "
         "y dashed)'\nset xlabel 't [s]'\nset ylabel 'displacement [m]'\nplot ";
    for (size_t j = 0; j < sc.outputNodes.size(); ++j) {
      const int k = sc.outputNodes[j];
      const Vector2 drawn = sc.cableNodes[static_cast<size_t>(k)];
      g << (j > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:($" << nodeColumn + 2 * j << " - "
        << num(drawn(0)) << ") with lines lc " << j + 1 << " title 'node " << k << "', '' every ::1 using 1:($"
        << nodeColumn + 2 * j + 1 << " - " << num(drawn(1)) << ") with lines dt 2 lc " << j + 1 << " notitle";
    }
    g << "\n";
  }
  if (n > 0) {
    g << "set output 'pulley_speeds.png'\nset title 'Pulley speeds'\nset xlabel 't [s]'\nset ylabel 'omega [rad/s]'\nplot ";
    for (int p = 0; p < n; ++p)
      g << (p > 0 ? ", " : "") << "'timeseries.csv' every ::1 using 1:" << 2 + n + p << " with lines title 'P" << p + 1
        << " " << quoted(sc.pulleys[p].name, '\'') << "'";
    g << "\n";
  }
  g << "set output 'axial_force.png'\nset title 'Axial force along the belt at end time'\nset xlabel 's [m]'\n"
       "set ylabel 'N [N]'\nplot 'belt_profile.csv' every ::1 using 1:4 with lines title 'axial force'\n";
  g.close();
  const std::string command = "cd '" + directory + "' && gnuplot plots.gp > plots.log 2>&1";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "warning: gnuplot failed or is missing (Debian package gnuplot-nox); see %s/plots.log\n",
                 directory.c_str());
  }
}

}  // namespace

bool writeOpenCableFiles(const std::string& directory, const CableRunInfo& info, const std::vector<CableRow>& rows,
                         const std::vector<CableProfileRow>& profile, std::vector<float> stepMicros,
                         std::string& error) {
  const Scenario& sc = *info.scenario;
  for (const char* name : {"timeseries.csv", "belt_profile.csv", "summary.json"}) {
    const std::string path = directory + "/" + name;
    const bool ok = name[0] == 't'   ? writeTimeseries(path, sc, rows)
                    : name[0] == 'b' ? writeProfile(path, profile)
                                     : writeSummary(path, info, rows, stepMicros);
    if (!ok) {
      error = "cannot write " + path;
      return false;
    }
  }
  if (sc.plots) writePlots(directory, sc);
  return true;
}

}  // namespace beltsim::host
