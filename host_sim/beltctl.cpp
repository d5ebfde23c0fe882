// beltctl: the reference drive controller for beltsim's plant (and the example to copy for your
// own). A PI speed controller drives a torque-driven motor pulley (P1 by default) along a speed
// profile (a step by default) while a load-torque profile on a loaded pulley (the first after the
// motor) acts as the disturbance; every other input is held at a constant (0 by default).
// --inputs lists the plant's pulley inputs in belt order as the plant's scenario implies them
// (speed / torque pulleys: "speed" / "torque"; fixed: "none"; every other kind: "load"). It talks the
// plant protocol (firmware/PROTOCOL.md) over UDP (beltsim hil) or a TCP byte stream (the
// Cortex-M7 firmware's UART under QEMU), in lockstep or in real time.
//
//   beltctl --udp 127.0.0.1:47800 --lockstep --duration 2 --log loop.csv --trace frames.bin
//   beltctl --tcp 127.0.0.1:47900 --lockstep ...
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "frames.hpp"
#include "net.hpp"
#include "pi_controller.hpp"

namespace {

using namespace beltsim;
using namespace beltsim::host;

struct Step {
  double time = 0.0, value = 0.0;  // value after `time`, 0 before
  double at(double t) const { return t >= time ? value : 0.0; }
};

// "torque,load,none,...": the plant's input kinds (PulleyInput values); false if malformed.
bool parseInputs(const std::string& text, fw::CommandFrame& f) {
  f = fw::CommandFrame{};
  std::size_t begin = 0;
  int n = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string kind = text.substr(begin, end - begin);
    if (n == fw::kFramePulleys) return false;
    f.inputKind[n++] = kind == "none" ? 0 : kind == "speed" ? 1 : kind == "torque" ? 2 : kind == "load" ? 3 : 255;
    if (f.inputKind[n - 1] == 255) return false;
    begin = end + 1;
  }
  f.pulleyCount = static_cast<std::uint8_t>(n);
  return n >= 2;
}

std::string inputsText(const std::uint8_t* kinds, int n) {
  static const char* const names[] = {"none", "speed", "torque", "load"};
  std::string text;
  for (int i = 0; i < n; ++i) text += (i ? "," : "") + std::string(kinds[i] < 4 ? names[kinds[i]] : "?");
  return text;
}

bool parseStep(const std::string& text, Step& s) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return false;
  char* end = nullptr;
  s.time = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + colon) return false;
  s.value = std::strtod(text.c_str() + colon + 1, &end);
  return *end == '\0' && std::isfinite(s.time) && std::isfinite(s.value);
}

std::uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

// The link to the plant: one command frame out, output frames in.
class Link {
 public:
  bool open(const std::string& udp, const std::string& tcp, std::string& error) {
    useTcp_ = !tcp.empty();
    if (!parseAddress(useTcp_ ? tcp : udp, plant_, error)) return false;
    if (useTcp_) return stream_.connect(plant_, 20000, error);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    return udp_.open(local, error);
  }
  bool send(const std::uint8_t (&frame)[fw::kCommandFrameSize]) {
    return useTcp_ ? stream_.send(frame, sizeof frame) : udp_.send(frame, sizeof frame, plant_);
  }
  // Next output frame before `deadline` (CLOCK_MONOTONIC ns); false if none came.
  bool receiveUntil(fw::OutputFrame& out, std::uint64_t deadline) {
    std::uint8_t bytes[fw::kOutputFrameSize];
    for (;;) {
      const std::uint64_t now = nowNs();
      const long long left = now >= deadline ? 0 : static_cast<long long>((deadline - now) / 1000u);
      if (useTcp_) {
        if (frames_.pop(bytes)) return fw::decodeOutput(bytes, sizeof bytes, out) == fw::DecodeError::kNone;
        std::uint8_t chunk[512];
        const long n = stream_.receive(chunk, sizeof chunk, left);
        if (n < 0) return false;
        if (n > 0) frames_.push(chunk, static_cast<std::size_t>(n));
        else if (left == 0) return false;
      } else {
        std::uint8_t datagram[1024];
        sockaddr_in from{};
        const long n = udp_.receive(datagram, sizeof datagram, from, left);
        if (n <= 0) return false;
        if (fw::decodeOutput(datagram, static_cast<std::size_t>(n), out) == fw::DecodeError::kNone) return true;
      }
    }
  }

 private:
  bool useTcp_ = false;
  sockaddr_in plant_{};
  UdpSocket udp_;
  TcpStream stream_;
  fw::OutputStream frames_;
};

struct Analysis {
  double settlingTime = -1.0;  // s after the speed step until |omega - ref| <= 2 % for good
  double dip = 0.0;            // rad/s below the reference after the load step
  double recoveryTime = -1.0;  // s after the load step until back within 2 % for good
};

// From the logged truth speeds: settling of the speed step (within 2 % until the load step) and
// the dip and recovery after the load step.
Analysis analyse(const std::vector<double>& t, const std::vector<double>& omega, const Step& speed, const Step& load) {
  Analysis a;
  const double band = 0.02 * std::fabs(speed.value);
  const double loadTime = load.value != 0.0 ? load.time : 1e300;
  double lastOutside = speed.time;
  bool any = false;
  for (std::size_t i = 0; i < t.size() && t[i] < loadTime; ++i) {
    if (t[i] < speed.time) continue;
    any = true;
    if (std::fabs(omega[i] - speed.value) > band) lastOutside = t[i];
  }
  if (any) a.settlingTime = lastOutside - speed.time;
  if (load.value != 0.0) {
    double lastOutsideAfterLoad = load.time;
    bool seen = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] < load.time) continue;
      seen = true;
      a.dip = std::fmax(a.dip, speed.value - omega[i]);
      if (std::fabs(omega[i] - speed.value) > band) lastOutsideAfterLoad = t[i];
    }
    if (seen) a.recoveryTime = lastOutsideAfterLoad - load.time;
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"beltctl: reference PI speed controller for the beltsim plant"};
  std::string udp = "127.0.0.1:47800", tcp, logPath, tracePath, summaryPath, speedText = "0.05:12", loadText = "1.0:25";
  std::string inputsArg = "torque,load";
  std::vector<std::string> holdArgs;
  int motorPulley = 0, loadPulley = 0;  // 1-based; 0: the first torque input / the first load input after it
  bool lockstep = false, useTruth = false;
  double duration = 2.0, stepSize = 1e-3, encoderCpr = 65536.0;
  int window = 4, timeoutMs = 10000;
  PiSettings pi;
  app.add_option("--udp", udp, "plant address (beltsim hil)")->capture_default_str();
  app.add_option("--tcp", tcp, "plant UART as a TCP stream (the firmware under QEMU); replaces --udp");
  app.add_flag("--lockstep", lockstep, "wait for each output frame before the next command");
  app.add_option("--duration", duration, "seconds to run")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--step", stepSize, "control period = the plant's step, s")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--speed-step", speedText, "TIME:VALUE speed reference step, rad/s")->capture_default_str();
  app.add_option("--load-step", loadText, "TIME:VALUE load torque step on the load pulley, N m")->capture_default_str();
  app.add_option("--inputs", inputsArg, "the plant's pulley inputs in belt order: speed|torque|load|none,...")
      ->capture_default_str();
  app.add_option("--motor", motorPulley, "pulley (1-based) the PI controller drives; default: the first torque input");
  app.add_option("--load", loadPulley, "pulley (1-based) of the load step; default: the first load input after the motor");
  app.add_option("--hold", holdArgs, "PULLEY:VALUE constant input of another pulley (repeatable)");
  app.add_option("--kp", pi.kp, "proportional gain, N m s/rad")->capture_default_str();
  app.add_option("--ki", pi.ki, "integral gain, N m/rad")->capture_default_str();
  app.add_option("--torque-limit", pi.torqueLimit, "N m")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--encoder-cpr", encoderCpr, "plant's encoder counts per revolution")->capture_default_str();
  app.add_option("--window", window, "encoder speed estimate over this many periods")->capture_default_str();
  app.add_flag("--use-truth", useTruth, "control on the ground-truth speed instead of the encoder");
  app.add_option("--timeout-ms", timeoutMs, "lockstep: give up after this long without an answer")->capture_default_str();
  app.add_option("--log", logPath, "CSV log: time, reference, speeds, torques, span forces");
  app.add_option("--trace", tracePath, "binary file of every output frame received");
  app.add_option("--summary", summaryPath, "JSON with settling time, dip and recovery");
  CLI11_PARSE(app, argc, argv);

  Step speed, load;
  if (!parseStep(speedText, speed) || !parseStep(loadText, load)) {
    std::fprintf(stderr, "error: --speed-step and --load-step take TIME:VALUE\n");
    return 2;
  }
  fw::CommandFrame base;
  if (!parseInputs(inputsArg, base)) {
    std::fprintf(stderr, "error: --inputs takes 2 to %d of speed, torque, load, none separated by commas (got '%s')\n",
                 fw::kFramePulleys, inputsArg.c_str());
    return 2;
  }
  const int pulleys = base.pulleyCount;
  for (int p = 0; motorPulley == 0 && p < pulleys; ++p)
    if (base.inputKind[p] == 2) motorPulley = p + 1;
  for (int p = motorPulley; loadPulley == 0 && p < pulleys; ++p)
    if (base.inputKind[p] == 3) loadPulley = p + 1;
  if (motorPulley < 1 || motorPulley > pulleys || base.inputKind[motorPulley - 1] != 2) {
    std::fprintf(stderr, "error: --motor: the PI controller drives a pulley with a torque input (--inputs %s)\n",
                 inputsArg.c_str());
    return 2;
  }
  if (loadPulley < 0 || loadPulley > pulleys || (loadPulley > 0 && base.inputKind[loadPulley - 1] != 3)) {
    std::fprintf(stderr, "error: --load: the load step needs a pulley with a load input (--inputs %s)\n",
                 inputsArg.c_str());
    return 2;
  }
  for (const std::string& h : holdArgs) {
    Step held;
    const int p = parseStep(h, held) ? static_cast<int>(held.time) : 0;
    if (p < 1 || p > pulleys || held.time != p || p == motorPulley || p == loadPulley || base.inputKind[p - 1] == 0) {
      std::fprintf(stderr, "error: --hold %s: PULLEY:VALUE for a pulley with an input other than the motor and load\n",
                   h.c_str());
      return 2;
    }
    base.input[p - 1] = held.value;
  }
  const int m = motorPulley - 1, l = loadPulley - 1;  // l < 0: no load input
  Link link;
  std::string error;
  if (!link.open(udp, tcp, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  std::ofstream log, trace;
  if (!logPath.empty()) {
    log.open(logPath);
    // The motor and load pulleys first (the columns of the two-pulley drive), then every pulley.
    log << "time,speed_reference,omega_motor,omega_load,omega_motor_estimate,motor_torque_command,motor_torque,"
           "load_torque,span_force_1,span_force_2,load_cell_1,load_cell_2,converged,safe_state,fault";
    for (int p = 1; p <= pulleys; ++p) log << ",omega_p" << p;
    log << "\n";
  }
  if (!tracePath.empty()) trace.open(tracePath, std::ios::binary);

  PiSpeedController controller(pi);
  EncoderSpeedEstimator estimator(encoderCpr, window);
  const std::uint32_t steps = static_cast<std::uint32_t>(duration / stepSize + 0.5);
  double torque = 0.0;
  std::vector<double> times, speeds;
  fw::OutputFrame out;
  std::uint32_t received = 0, missing = 0;
  const std::uint64_t period = static_cast<std::uint64_t>(stepSize * 1e9 + 0.5);
  std::uint64_t lastFrame = nowNs();
  bool fresh = true;  // the previous iteration's frame arrived (the first command goes out at once)
  // Runs until the plant has taken `steps` steps (lockstep: one per command; real time: one per
  // tick, whether a command came for it or not).
  std::uint32_t k = 1;  // sequence number of the next command
  for (;;) {
    // The command acts over the step that ends at t: step k in lockstep, the step after the
    // newest frame's in real time.
    const double t = lockstep ? k * stepSize : out.time + stepSize;
    if (lockstep || fresh) {
      fw::CommandFrame command = base;
      command.sequence = k;
      command.input[m] = torque;
      if (l >= 0) command.input[l] = load.at(t);
      std::uint8_t bytes[fw::kCommandFrameSize];
      fw::encodeCommand(command, bytes);
      if (!link.send(bytes)) {
        std::fprintf(stderr, "error: sending to the plant failed\n");
        return 3;
      }
      ++k;
    }
    if (lockstep) {
      fresh = link.receiveUntil(out, nowNs() + static_cast<std::uint64_t>(timeoutMs) * 1000000u);
      if (!fresh) {
        std::fprintf(stderr, "error: no answer from the plant within %d ms at step %u\n", timeoutMs, k - 1);
        return 3;
      }
    } else {
      // Real time, synchronized to the plant: it answers every tick with an output frame, and
      // the next command goes out as soon as that frame is here, so every tick gets exactly one
      // fresh command (none superseded, none late) whatever the two machines' clocks do. A frame
      // not here within two periods counts as missing: the command is not repeated (the plant
      // holds it), the estimate keeps its value, and the wait goes on.
      fresh = link.receiveUntil(out, nowNs() + 2 * period);
      for (fw::OutputFrame newer; fresh && link.receiveUntil(newer, nowNs());) out = newer;  // fell behind
      if (!fresh) {
        ++missing;
        if (nowNs() - lastFrame > static_cast<std::uint64_t>(timeoutMs) * 1000000u) {
          std::fprintf(stderr, "error: no frame from the plant within %d ms\n", timeoutMs);
          return 3;
        }
        continue;
      }
      lastFrame = nowNs();
    }
    // The plant says which drive it is: a controller for another drive stops at once.
    if (out.pulleyCount != base.pulleyCount || std::memcmp(out.inputKind, base.inputKind, sizeof base.inputKind) != 0) {
      std::fprintf(stderr, "error: the plant's pulley inputs are %s; beltctl was started with --inputs %s\n",
                   inputsText(out.inputKind, out.pulleyCount).c_str(), inputsArg.c_str());
      return 2;
    }
    ++received;
    if (trace.is_open()) {
      std::uint8_t b[fw::kOutputFrameSize];
      fw::encodeOutput(out, b);
      trace.write(reinterpret_cast<const char*>(b), sizeof b);
    }
    const double estimate = estimator.update(out.encoderCount[m], out.step, stepSize);
    const double reference = speed.at(t);
    torque = controller.update(reference, useTruth ? out.speed[m] : estimate, stepSize);
    times.push_back(out.time);
    speeds.push_back(out.speed[m]);
    if (log.is_open()) {
      const int lp = l >= 0 ? l : (m + 1) % pulleys;  // the load pulley's columns (or the next pulley's)
      char line[800];
      int n = std::snprintf(line, sizeof line, "%.6f,%.6g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%u,%u,%u",
                            out.time, reference, out.speed[m], out.speed[lp], estimate, torque, out.torque[m],
                            -out.torque[lp], out.spanForce[0], out.spanForce[1], out.loadCell[0], out.loadCell[1],
                            out.converged, out.safeState, static_cast<unsigned>(out.fault));
      for (int p = 0; p < pulleys; ++p)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%.9g", out.speed[p]);
      log << line << "\n";
    }
    if (out.step >= steps) break;
  }
  const Analysis a = analyse(times, speeds, speed, load);
  std::fprintf(stderr,
               "beltctl: %u commands, %u frames received (%u waits of two periods without), final motor speed %.4f rad/s; speed step "
               "settles within 2 %% in %.3f s; load step %.1f N m: dip %.3f rad/s, back within 2 %% after %.3f s\n",
               k - 1, received, missing, out.speed[m], a.settlingTime, load.value, a.dip, a.recoveryTime);
  if (!summaryPath.empty()) {
    std::ofstream j(summaryPath);
    j << "{\"steps\": " << steps << ", \"frames_received\": " << received << ", \"final_omega_p1\": " << out.speed[0]
      << ", \"motor_pulley\": " << motorPulley << ", \"final_omega_motor\": " << out.speed[m]
      << ", \"settling_time_2pct\": " << a.settlingTime << ", \"load_dip\": " << a.dip
      << ", \"load_recovery_time_2pct\": " << a.recoveryTime << ", \"safe_state\": " << static_cast<int>(out.safeState)
      << ", \"fault\": " << static_cast<int>(out.fault) << "}\n";
  }
  return out.safeState ? 4 : 0;
}
