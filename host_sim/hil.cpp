// The plant side of hardware-in-the-loop runs on the host. The loop is the firmware's: its tick
// loop (firmware/tick_loop.hpp) through the HAL's Linux backend, which reads and answers the UDP
// socket one datagram a frame and paces the real-time ticks, and its PlantLoop (validation, safe
// state, hold limit, sensors, frames). This file adds the socket, the recording, the output
// files, the stop signals and the replay.
#include "hil.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include <sched.h>
#include <sys/mman.h>

#include "frames.hpp"
#include "hal/linux_plant.hpp"
#include "hal/platform.hpp"
#include "net.hpp"
#include "plant_config.hpp"
#include "plant_loop.hpp"
#include "recording.hpp"
#include "scenario.hpp"
#include "tick_loop.hpp"
#include "timing_stats.hpp"

namespace beltsim::host {
namespace {

using fw::CommandFrame;
using fw::OutputFrame;

// The plants hil compiles, as (element count, mesh): the firmware's two configurations
// (firmware/configs/*.toml, whatever a build configures them to), the eulerian mesh at 16
// elements (the main job, realtime_belt_drive.toml) and at 24 (accessory_drive_eulerian.toml; where
// beltsim's scenario reader takes 24 eulerian elements, BELTSIM_HIL_EULERIAN_24), and the material
// mesh at 24 (hil_belt_drive.toml, hil_injected_faults.toml). The same pair twice is one
// instantiation. Each runs a drive of two pulleys on the build of two circles (the firmware's
// bits) and more on that of eight; twoCircles false leaves the first out (a two-pulley drive then
// runs on the build of eight: the same drive, other bits), which saves its compile time.
struct CompiledPlant {
  int elements;
  PlantMesh mesh;
  bool twoCircles = true;
};
constexpr CompiledPlant kHilPlants[] = {{fw::kMicrocontrollerElements, fw::kMicrocontrollerMesh},
                                        {fw::kPcElements, fw::kPcMesh},
                                        {16, PlantMesh::kEulerian},
#if defined(BELTSIM_HIL_EULERIAN_24)
                                        {24, PlantMesh::kEulerian, false},
#endif
                                        {24, PlantMesh::kMaterial}};
constexpr std::size_t kHilPlantCount = sizeof(kHilPlants) / sizeof(kHilPlants[0]);

const char* meshName(PlantMesh mesh) { return mesh == PlantMesh::kEulerian ? "eulerian" : "material"; }

// The exit status of a lockstep run whose controller never came or fell silent (docs/hil.md).
constexpr int kExitControllerSilent = 4;

bool isCompiled(const Scenario& s, const CompiledPlant& p) {
  return p.elements == s.elements && p.mesh == (s.eulerianMesh ? PlantMesh::kEulerian : PlantMesh::kMaterial);
}

}  // namespace

// The plant configuration a scenario describes: its 2 to 8 pulleys of any kind; each pulley's
// input in the command frames follows from its kind (PulleyInput). Profiles of the scenario are
// not used: commands come from the controller.
bool plantConfigFromScenario(const Scenario& s, PlantConfig& c, std::string& error) {
  const std::string where = s.file + ": ";
  if (s.pulleys.size() < 2 || s.pulleys.size() > static_cast<std::size_t>(kMaxPlantPulleys)) {
    error = where + "key 'pulley': hil takes 2 to " + std::to_string(kMaxPlantPulleys) + " pulleys";
    return false;
  }
  // The firmware plant is a closed belt started from its static equilibrium (as
  // scripts/scenario_to_plant_config.py requires of the firmware's own files).
  if (!s.belt.closed) {
    error = where + "key 'belt.closed': hil runs a closed belt (the firmware plant)";
    return false;
  }
  if (s.startAtRest) {
    error = where + "key 'static.start': hil starts from the static equilibrium (the firmware plant)";
    return false;
  }
  // Contact options the plant does not carry would be ignored silently: refused instead.
  const char* unsupported = s.normalExponent != 1.0   ? "contact.normal_exponent"
                            : !s.useSegmentNormals     ? "contact.segment_normals"
                            : !s.useBoundingBox        ? "contact.bounding_box"
                            : s.law != TangentialLaw::kBristle ? "friction.law"
                                                               : nullptr;
  if (unsupported != nullptr) {
    error = where + "key '" + unsupported + "': hil's plant (the firmware's) supports only the default";
    return false;
  }
  if (s.segmentsPerElement > BeltDrivePlant<24>::kSegments) {
    error = where + "key 'contact.segments_per_element': hil supports at most 4";
    return false;
  }
  c = PlantConfig{};
  c.belt = s.belt;
  c.contact = s.contactPerArea;  // the plant maps it per segment as `beltsim run` does
  c.segmentsPerElement = s.segmentsPerElement;
  c.pulleyCount = static_cast<int>(s.pulleys.size());
  for (int p = 0; p < c.pulleyCount; ++p) c.pulley[p] = s.pulleys[static_cast<std::size_t>(p)].circle;
  c.integrator = s.integrator;
  c.stepSize = s.stepSize;
  c.statics = s.staticSettings;
  c.faults = s.faults;  // [[fault]]: applied by the plant at the step's end time, as beltsim run does
  c.sensors = s.sensors;
  c.grading = s.grading;  // the eulerian mesh's (a plant of the material mesh does not read it)
  return true;
}

namespace {

bool prepareOutputDirectory(const std::string& dir, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    error = "output folder " + dir + " is not empty: refusing to mix runs";
    return false;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    error = "cannot create output folder " + dir + ": " + ec.message();
    return false;
  }
  return true;
}

std::string histogramJson(const fw::TimingHistogram& h) {
  std::ostringstream o;
  o << "{\"count\": " << h.count() << ", \"min_us\": " << h.min() / 1e3 << ", \"median_us\": " << h.quantile(0.5) / 1e3
    << ", \"p99_us\": " << h.quantile(0.99) / 1e3 << ", \"p999_us\": " << h.quantile(0.999) / 1e3
    << ", \"max_us\": " << h.max() / 1e3 << ", \"mean_us\": " << h.mean() / 1e3 << "}";
  return o.str();
}

// Whether SIGINT or SIGTERM asked the run to end (StopSignals below).
int stopSignalReceived();

// One plant session: the loop, its trace and time series, the recording. It is the observer of
// the firmware's tick loop (fw::TickObserver): the loop tells it every frame received and every
// tick stepped, it records them and keeps the outputs.
template <int NE, int NP, PlantMesh M>
class Session : public fw::TickObserver {
 public:
  bool setUp(const PlantConfig& config, const fw::LoopOptions& loopOptions, const std::string& dir,
             const RecordingHeader* header, std::string& error) {
    loop_ = std::make_unique<fw::PlantLoop<NE, NP, M>>();
    const ParameterError e = loop_->setUp(config, loopOptions);
    if (!e.ok()) {
      error = std::string("invalid plant parameter '") + e.parameter + "'";
      return false;
    }
    const StaticResult statics = loop_->start(true);
    if (!statics.converged) {
      error = "static equilibrium did not converge";
      return false;
    }
    trace_.open(dir + "/trace.bin", std::ios::binary);
    series_.open(dir + "/timeseries.csv");
    pulleys_ = config.pulleyCount;
    series_ << "step,time,command_sequence";
    for (int p = 1; p <= pulleys_; ++p)
      series_ << ",angle_p" << p << ",omega_p" << p << ",torque_p" << p << ",encoder_p" << p << ",arm_angle_p" << p;
    for (int k = 1; k <= pulleys_; ++k) series_ << ",span_force_" << k << ",load_cell_" << k;
    series_ << ",converged,newton,pns,residual_norm,pns_error,fault,safe_state,rejected,late,overruns\n";
    if (header != nullptr && !recording_.open(dir + "/recording.bin", *header, error)) return false;
    record_ = header != nullptr;
    // The test bench's fault commands and the plant's answers (docs/injected_faults.md).
    faultLog_.open(dir + "/fault_commands.csv");
    faultLog_ << "tick,sequence,table,action,value,result,effective_step,accepted,refused\n";
    return trace_.good() && series_.good() && faultLog_.good();
  }

  // A datagram of the test bench, applied before tick `tick`'s step (PlantLoop::receiveFaultCommand):
  // recorded at once (a buffered write, in its place before the tick's record), answered and
  // logged after the step's timing (writeAnswers). Never a step of its own.
  void faultCommand(std::uint32_t tick, const std::uint8_t* data, std::size_t length) {
    if (record_) recording_.faultCommand(tick, data, length);
    if (answerCount_ == kAnswerCapacity) writeAnswers();  // a replay's long list within one tick
    answers_[answerCount_++] = {tick, loop_->receiveFaultCommand(data, length)};
  }

  // The acknowledgements of the tick's fault commands to the bench (a live run) and their lines in
  // fault_commands.csv.
  void writeAnswers() {
    for (std::size_t i = 0; i < answerCount_; ++i) {
      fw::FaultAckFrame& ack = answers_[i].ack;
      char line[160];
      std::snprintf(line, sizeof line, "%u,%u,%u,%u,%.17g,%u,%u,%u,%u\n", answers_[i].tick, ack.sequence, ack.table,
                    ack.action, ack.value, static_cast<unsigned>(ack.result), ack.effectiveStep, ack.accepted,
                    ack.refused);
      faultLog_ << line;
      if (!record_) continue;  // a replay: no bench to answer
      ack.foreign = hal::plantForeignDatagrams();
      std::uint8_t bytes[fw::kFaultAckFrameSize];
      fw::encodeFaultAck(ack, bytes);
      hal::benchWrite(bytes, sizeof bytes);
    }
    answerCount_ = 0;
  }

  // ---- the tick loop's observer (firmware/tick_loop.hpp) ----
  void frame(std::uint32_t tick, const std::uint8_t* data, std::size_t length, fw::DecodeError e) {
    if (record_) recording_.frame(tick, data, length);
    // A controller built for another protocol version is told why once (every frame is counted).
    if (e == fw::DecodeError::kVersion && !versionReported_) {
      versionReported_ = true;
      std::fprintf(stderr, "rejected: a command frame of protocol version %u; this plant speaks version %u "
                   "(firmware/PROTOCOL.md)\n", static_cast<unsigned>(data[2]), static_cast<unsigned>(fw::kFrameVersion));
    }
  }
  void tick(std::uint32_t tick, std::uint32_t elapsed, fw::OverrunCause cause) {
    if (record_) recording_.tick(tick, elapsed, cause == fw::OverrunCause::kCompute);
  }
  // The tick's trace and time-series records are only kept in memory: afterStep writes them.
  void output(std::uint32_t, const std::uint8_t (&bytes)[fw::kOutputFrameSize], const OutputFrame& o) {
    hash_.add(bytes);
    if (pendingCount_ == kPendingCapacity) writePending();  // a caller that writes rarely (replay)
    Pending& p = pending_[pendingCount_++];
    p.frame = o;
    std::memcpy(p.bytes, bytes, sizeof bytes);
    last_ = o;
  }
  // The bench's datagrams queued since the previous tick (hal/linux_plant.hpp): after the tick's
  // command frames, before its step, so that a fault command acts from this step on.
  void beforeStep(std::uint32_t tick) {
    std::uint8_t datagram[hal::kBenchSlotBytes];
    for (int i = 0; i < hal::kBenchQueueSlots; ++i) {
      const std::size_t n = hal::benchRead(datagram, sizeof datagram);
      if (n == 0) break;
      faultCommand(tick, datagram, n);
    }
  }
  // After the step's timing (a live run) or after each replayed step: the injected faults acting,
  // for the bench alone (never in the controller's frame), recorded and kept when they change.
  void afterStep(std::uint32_t tick, const fw::WorkTime& work) {
    steps_ = tick;
    if (loop_->actingFaults() != acting_) {
      acting_ = loop_->actingFaults();
      actingChanges_.push_back({last_.step, acting_});
      if (record_) recording_.faultsActing(last_.step, acting_);
    }
    if (work.cpuKnown) stepCpuTime_.add(work.cpu);
    writeAnswers();
    writePending();  // untimed: while the controller works on the answer, or in the tick's slack
  }
  bool stopRequested() const { return stopSignalReceived() != 0; }

  // Writes the records of the ticks since the last call to trace.bin and timeseries.csv. The run
  // loops call it after a tick's timing measurement: the CSV formatting (23 fields) and a stream
  // buffer that fills and goes to the kernel would otherwise be counted as step time and show up
  // as tick jitter, although they are no part of the plant.
  void writePending() {
    for (std::size_t i = 0; i < pendingCount_; ++i) {
      const OutputFrame& o = pending_[i].frame;
      trace_.write(reinterpret_cast<const char*>(pending_[i].bytes), sizeof pending_[i].bytes);
      // Formatted into a fixed buffer (no allocation per record): at most 8 pulleys * 5 + 8 * 2
      // numbers of <= 16 characters each and the health fields.
      char line[2048];
      int n = std::snprintf(line, sizeof line, "%u,%.6f,%u", o.step, o.time, o.commandSequence);
      for (int p = 0; p < pulleys_; ++p)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%.9g,%.9g,%.9g,%d,%.9g", o.angle[p],
                           o.speed[p], o.torque[p], o.encoderCount[p], o.armAngle[p]);
      for (int k = 0; k < pulleys_; ++k)
        n += std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%.9g,%.9g", o.spanForce[k],
                           o.loadCell[k]);
      std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), ",%u,%u,%u,%.6g,%.6g,%u,%u,%u,%u,%u\n",
                    o.converged, o.newtonIterations, o.pnsIterations, o.residualNorm, o.pnsError,
                    static_cast<unsigned>(o.fault), o.safeState, o.rejectedFrames, o.lateFrames, o.overruns);
      series_ << line;
    }
    pendingCount_ = 0;
  }

  // Every path that ends a run (end time, silent controller, end of a replay) comes here:
  // the records still in memory are written before the files are closed.
  bool finish() {
    writeAnswers();
    writePending();
    trace_.close();
    series_.close();
    faultLog_.close();
    return (!record_ || recording_.close()) && trace_.good() && series_.good() && faultLog_.good();
  }
  const OutputFrame& last() const { return last_; }
  const fw::TraceHash& hash() const { return hash_; }
  double stepSize() const { return loop_->plant().config().stepSize; }
  fw::PlantLoop<NE, NP, M>& loop() { return *loop_; }
  const fw::PlantLoop<NE, NP, M>& loop() const { return *loop_; }
  std::uint32_t steps() const { return steps_; }
  const fw::TimingHistogram& stepCpuTime() const { return stepCpuTime_; }
  // From output step `step` on, the tables of bit mask `mask` act (every change, in order).
  struct ActingChange {
    std::uint32_t step;
    std::uint8_t mask;
    bool operator==(const ActingChange& o) const { return step == o.step && mask == o.mask; }
  };
  const std::vector<ActingChange>& actingChanges() const { return actingChanges_; }

 private:
  std::unique_ptr<fw::PlantLoop<NE, NP, M>> loop_;
  std::ofstream trace_, series_, faultLog_;
  RecordingWriter recording_;
  bool record_ = false;  // a live run (not a replay): recorded, and fault commands answered
  struct Answer {
    std::uint32_t tick;
    fw::FaultAckFrame ack;
  };
  static constexpr std::size_t kAnswerCapacity = hal::kBenchQueueSlots;
  Answer answers_[kAnswerCapacity] = {};
  std::size_t answerCount_ = 0;
  bool versionReported_ = false;
  std::uint8_t acting_ = 0;
  std::vector<ActingChange> actingChanges_;
  int pulleys_ = 2;
  std::uint32_t steps_ = 0;
  fw::TimingHistogram stepCpuTime_;  // the step thread's CPU time (ns), the compute alone
  // Records of the ticks not yet written (a fixed buffer: no allocation in the tick).
  struct Pending {
    OutputFrame frame;                         // for the timeseries.csv line
    std::uint8_t bytes[fw::kOutputFrameSize];  // for trace.bin
  };
  static constexpr std::size_t kPendingCapacity = 64;
  Pending pending_[kPendingCapacity];
  std::size_t pendingCount_ = 0;
  fw::TraceHash hash_;
  OutputFrame last_;
};

struct RunReport {
  std::string mode;
  std::uint32_t steps = 0;
  bool controllerSilent = false;
  int stopSignal = 0;  // SIGINT/SIGTERM that ended the run early (0: none)
  std::uint32_t foreignFrames = 0;  // datagrams from another address than the controller's (and the bench's)
  std::uint32_t benchDropped = 0;   // bench datagrams dropped on a full queue
  fw::LoopTiming timing;
  fw::TimingHistogram stepCpuTime;  // the step thread's CPU time (ns), the compute alone
};

template <int NE, int NP, PlantMesh M>
void writeSummary(const std::string& dir, const Session<NE, NP, M>& s, const RunReport& r) {
  const OutputFrame& o = s.last();
  std::ofstream j(dir + "/summary.json");
  char hash[32];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(s.hash().value));
  j << "{\n  \"mode\": \"" << r.mode << "\",\n  \"elements\": " << NE << ",\n  \"belt_mesh\": \""
    << (M == PlantMesh::kEulerian ? "eulerian" : "material") << "\",\n  \"step_size\": " << s.stepSize()
    << ",\n  \"steps\": " << r.steps << ",\n  \"simulated_time\": " << o.time
    << ",\n  \"controller_went_silent\": " << (r.controllerSilent ? "true" : "false")
    << ",\n  \"stopped_by_signal\": " << r.stopSignal << ",\n  \"foreign_frames\": " << r.foreignFrames
    << ",\n  \"fault_commands\": {\"accepted\": " << s.loop().faultCommandsAccepted()
    << ", \"refused\": " << s.loop().faultCommandsRefused() << ", \"dropped\": " << r.benchDropped << "}"
    << ",\n  \"injected_faults_acting\": [";
  // Every change of the acting tables: from output step "step" on, "tables" act.
  const char* separator = "";
  for (const auto& c : s.actingChanges()) {
    j << separator << "{\"step\": " << c.step << ", \"tables\": [";
    for (int k = 0, n = 0; k < 8; ++k)
      if (c.mask & (1u << k)) j << (n++ ? ", " : "") << k;
    j << "]}";
    separator = ", ";
  }
  j << "]"
    << ",\n  \"safe_state\": " << static_cast<int>(o.safeState) << ",\n  \"fault\": " << static_cast<int>(o.fault)
    << ",\n  \"rejected_frames\": " << o.rejectedFrames << ",\n  \"rejected_by_cause\": {\"corrupt\": "
    << o.corruptFrames << ", \"invalid\": " << o.invalidFrames << ", \"stale\": " << o.staleFrames
    << ", \"superseded\": " << o.supersededFrames << "},\n  \"late_frames\": " << o.lateFrames
    << ",\n  \"overruns\": " << o.overruns << ",\n  \"overruns_by_cause\": {\"compute\": " << o.computeOverruns
    << ", \"wake_up\": " << o.overruns - o.computeOverruns << "}" << ",\n  \"final_omega_p1\": " << o.speed[0]
    << ",\n  \"final_omega_p2\": " << o.speed[1] << ",\n  \"pulleys\": " << static_cast<int>(o.pulleyCount)
    << ",\n  \"final_omega\": [";
  for (int p = 0; p < o.pulleyCount; ++p) j << (p ? ", " : "") << o.speed[p];
  j << "],\n  \"trace_hash\": \"" << hash << "\""
    << ",\n  \"step_time\": " << histogramJson(r.timing.stepTime) << ",\n  \"step_cpu_time\": "
    << histogramJson(r.stepCpuTime) << ",\n  \"tick_jitter\": "
    << histogramJson(r.timing.tickJitter) << "\n}\n";
}

std::string readFile(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  ok = in.good() || in.eof();
  return s.str();
}

// Ctrl-C (SIGINT) or SIGTERM end a hil run between two ticks; the outputs are then written as at
// any other end of the run, nothing recorded is lost. The handler only sets a flag.
volatile std::sig_atomic_t g_stopSignal = 0;
extern "C" void onStopSignal(int signal) { g_stopSignal = signal; }

class StopSignals {
 public:
  StopSignals() {
    g_stopSignal = 0;
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: a blocking wait returns early
    ::sigaction(SIGINT, &action, &previousInt_);
    ::sigaction(SIGTERM, &action, &previousTerm_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &previousInt_, nullptr);
    ::sigaction(SIGTERM, &previousTerm_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  static int received() { return g_stopSignal; }

 private:
  struct sigaction previousInt_ {};
  struct sigaction previousTerm_ {};
};

int stopSignalReceived() { return StopSignals::received(); }

// The usual real-time set-up of a Linux HIL process: no page faults, a fixed priority.
void requestRealtimePriority(int priority) {
  sched_param sp{};
  sp.sched_priority = priority;
  if (::mlockall(MCL_CURRENT | MCL_FUTURE) != 0 || ::sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
    std::fprintf(stderr, "warning: real-time priority %d not granted (%s): running as a normal process\n", priority,
                 std::strerror(errno));
}

// The socket bound and handed to the HAL's plant I/O: from now on the firmware's tick loop reads
// it one datagram a frame and answers its controller only (hal/linux_plant.hpp).
bool openPlantSocket(const HilOptions& opt, UdpSocket& socket) {
  std::string error;
  sockaddr_in bind{};
  if (!parseAddress(opt.address, bind, error) || !socket.open(bind, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return false;
  }
  hal::init();
  hal::attachPlantDescriptors(socket.fd(), socket.fd());
  if (!opt.controllerAddress.empty()) {
    sockaddr_in controller{};
    if (!parseAddress(opt.controllerAddress, controller, error)) {
      std::fprintf(stderr, "error: --controller: %s\n", error.c_str());
      return false;
    }
    hal::lockPlantPeer(reinterpret_cast<const sockaddr*>(&controller), sizeof controller);
  }
  if (!opt.benchAddress.empty()) {
    sockaddr_in bench{};
    if (!parseAddress(opt.benchAddress, bench, error)) {
      std::fprintf(stderr, "error: --bench: %s\n", error.c_str());
      return false;
    }
    sockaddr_in controller{};
    if (!opt.controllerAddress.empty() && parseAddress(opt.controllerAddress, controller, error) &&
        controller.sin_addr.s_addr == bench.sin_addr.s_addr && controller.sin_port == bench.sin_port) {
      std::fprintf(stderr, "error: --bench: the bench and the controller must be different peers\n");
      return false;
    }
    hal::setPlantBench(reinterpret_cast<const sockaddr*>(&bench), sizeof bench);
  }
  return true;
}

fw::TickLoopSettings tickLoopSettings(const HilOptions& opt, const PlantConfig& config) {
  fw::TickLoopSettings settings;
  settings.lockstep = opt.lockstep;
  settings.tickNanoseconds = opt.lockstep ? 0 : static_cast<std::uint32_t>(config.stepSize * 1e9 + 0.5);
  // At least 1 ms: the tick loop reads 0 as "no limit", the option as "give up at once".
  settings.lockstepTimeoutMilliseconds = static_cast<std::uint32_t>(std::max(1, opt.idleTimeoutMs));
  return settings;
}

template <int NE, int NP, PlantMesh M>
void printRunLine(const RunReport& report, const Session<NE, NP, M>& session) {
  const OutputFrame& o = session.last();
  std::fprintf(stderr,
               "hil %s: %u steps, t = %.4f s, omega P1 %.4f P2 %.4f rad/s, rejected %u, late %u, overruns %u, safe "
               "state %u (fault %u); step time median %.1f us, p99 %.1f us; tick jitter p99 %.1f us; trace hash "
               "0x%016llx\n",
               report.mode.c_str(), report.steps, o.time, o.speed[0], o.speed[1], o.rejectedFrames, o.lateFrames,
               o.overruns, o.safeState, static_cast<unsigned>(o.fault), report.timing.stepTime.quantile(0.5) / 1e3,
               report.timing.stepTime.quantile(0.99) / 1e3, report.timing.tickJitter.quantile(0.99) / 1e3,
               static_cast<unsigned long long>(session.hash().value));
}

template <int NE, int NP, PlantMesh M>
int runHilWith(const HilOptions& opt, const PlantConfig& config, const fw::LoopOptions& loopOptions,
               const RecordingHeader& header) {
  UdpSocket socket;
  if (!openPlantSocket(opt, socket)) return 2;
  std::string error;
  Session<NE, NP, M> session;
  if (!session.setUp(config, loopOptions, opt.outputDirectory, &header, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 3;
  }
  if (!opt.quiet)
    std::fprintf(stderr, "plant listening on %s (%s, %d elements, step %g s)\n", formatAddress(socket.localAddress()).c_str(),
                 opt.lockstep ? "lockstep" : "real time", NE, config.stepSize);
  const std::uint32_t totalSteps = static_cast<std::uint32_t>(opt.duration / config.stepSize + 0.5);
  const fw::TickLoopSettings settings = tickLoopSettings(opt, config);
  fw::TickLoop<NE, NP, Session<NE, NP, M>, M> tickLoop;
  tickLoop.setUp(session.loop(), session, settings);
  RunReport report;
  report.mode = opt.lockstep ? "lockstep" : "realtime";
  const StopSignals stopSignals;
  fw::RunEnd end = fw::RunEnd::kCompleted;
  if (opt.lockstep) {
    // Virtual time: every datagram (valid or not) advances the plant by exactly one step and is
    // answered with that step's output frame.
    end = tickLoop.run(totalSteps);
    if (end == fw::RunEnd::kControllerSilent && session.steps() == 0)
      std::fprintf(stderr, "error: no controller frame within %d ms: the lockstep run ended without a step\n",
                   opt.idleTimeoutMs);
    else if (end == fw::RunEnd::kControllerSilent)
      std::fprintf(stderr, "error: controller silent for %d ms at step %u of %u: the lockstep run ended early\n",
                   opt.idleTimeoutMs, session.steps() + 1, totalSteps);
  } else {
    if (opt.realtimePriority > 0) requestRealtimePriority(opt.realtimePriority);
    // Real time: the clock starts with the controller's first datagram (applied to tick 1); the
    // HAL ticks on absolute deadlines at the model rate from then on.
    const fw::FrameWait first = tickLoop.awaitFrame(1, settings.lockstepTimeoutMilliseconds);
    if (first == fw::FrameWait::kTimedOut) {
      report.controllerSilent = true;
      std::fprintf(stderr, "no controller within %d ms: ticking without one\n", opt.idleTimeoutMs);
    }
    hal::startTick(settings.tickNanoseconds);
    end = tickLoop.run(totalSteps);
  }
  report.controllerSilent = report.controllerSilent || end == fw::RunEnd::kControllerSilent;
  report.steps = session.steps();
  report.timing = tickLoop.timing();
  report.stepCpuTime = session.stepCpuTime();
  report.foreignFrames = hal::plantForeignDatagrams();
  report.benchDropped = hal::benchDroppedDatagrams();
  if (report.benchDropped > 0)
    std::fprintf(stderr, "hil: %u datagrams of the bench were dropped on a full queue (%d a tick)\n",
                 report.benchDropped, hal::kBenchQueueSlots);
  if (report.foreignFrames > 0)
    std::fprintf(stderr, "hil: %u datagrams from other addresses than the controller's were dropped unanswered\n",
                 report.foreignFrames);
  if (!session.finish()) {
    std::fprintf(stderr, "error: writing the outputs in %s failed\n", opt.outputDirectory.c_str());
    return 2;
  }
  report.stopSignal = StopSignals::received();
  writeSummary(opt.outputDirectory, session, report);
  if (report.stopSignal != 0) {
    std::fprintf(stderr, "hil: stopped by signal %d after %u steps; outputs written to %s\n", report.stopSignal,
                 report.steps, opt.outputDirectory.c_str());
    return 128 + report.stopSignal;  // the shell's convention for a run ended by a signal
  }
  if (!opt.quiet) printRunLine(report, session);
  // A lockstep run is a test: one whose controller never came or fell silent did not run what it
  // was asked to (its outputs are written all the same).
  if (opt.lockstep && end == fw::RunEnd::kControllerSilent) return kExitControllerSilent;
  return 0;
}

// The recorded frames and ticks through the same tick loop's frame and step functions, without
// the transport: the recorded elapsed periods and overrun causes stand for the clock.
template <int NE, int NP, PlantMesh M>
int replayWith(const PlantConfig& config, const fw::LoopOptions& loopOptions, const std::vector<RecordedEvent>& events,
               bool actingRecorded, const std::string& dir) {
  Session<NE, NP, M> session;
  std::string error;
  if (!session.setUp(config, loopOptions, dir, nullptr, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 3;
  }
  fw::TickLoop<NE, NP, Session<NE, NP, M>, M> tickLoop;
  tickLoop.setUp(session.loop(), session, fw::TickLoopSettings{});
  std::vector<typename Session<NE, NP, M>::ActingChange> recordedActing;
  for (const RecordedEvent& e : events) {
    if (e.kind == RecordedEvent::Kind::kFrame) tickLoop.applyFrame(e.tick, e.data.data(), e.data.size());
    else if (e.kind == RecordedEvent::Kind::kFaultCommand) session.faultCommand(e.tick, e.data.data(), e.data.size());
    else if (e.kind == RecordedEvent::Kind::kFaultsActing) recordedActing.push_back({e.tick, e.data[0]});
    else {
      tickLoop.stepWith(e.tick, e.elapsed, e.computeOverrun ? fw::OverrunCause::kCompute : fw::OverrunCause::kWakeUp);
      session.afterStep(e.tick, fw::WorkTime{});  // as the live run's loop does after each step
    }
  }
  session.finish();
  if (actingRecorded && recordedActing != session.actingChanges()) {  // version 3 had no such record
    std::fprintf(stderr, "error: the replay's injected faults act at other steps than the recording says\n");
    return 3;
  }
  RunReport report;
  report.mode = "replay";
  report.steps = session.last().step;
  writeSummary(dir, session, report);
  std::fprintf(stderr, "replay: %u steps, trace hash 0x%016llx\n", report.steps,
               static_cast<unsigned long long>(session.hash().value));
  return 0;
}

// Options travel in the recording as "key=value" lines.
std::string optionsText(const HilOptions& o) {
  std::ostringstream s;
  s.precision(17);
  s << "lockstep=" << (o.lockstep ? 1 : 0) << "\nhold=" << o.hold << "\nencoder_cpr=" << o.encoderCountsPerRevolution
    << "\nload_cell_resolution=" << o.loadCellResolution << "\n";
  for (const std::string& set : o.overrides) s << "set=" << set << "\n";
  return s.str();
}

bool optionsFromText(const std::string& text, HilOptions& o) {
  std::istringstream in(text);
  std::string line;
  o.overrides.clear();
  while (std::getline(in, line)) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) return false;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "lockstep") o.lockstep = value == "1";
    else if (key == "hold") o.hold = static_cast<unsigned>(std::stoul(value));
    else if (key == "encoder_cpr") o.encoderCountsPerRevolution = std::stod(value);
    else if (key == "load_cell_resolution") o.loadCellResolution = std::stod(value);
    else if (key == "set") o.overrides.push_back(value);
    else return false;
  }
  return true;
}

bool buildPlant(const HilOptions& opt, const std::string& scenarioPath, Scenario& scenario, PlantConfig& config,
                fw::LoopOptions& loopOptions, std::string& error) {
  const ParseResult parsed = loadScenario(scenarioPath, opt.overrides, scenario);
  if (!parsed.ok) {
    error = parsed.error;
    return false;
  }
  bool compiled = false;
  std::string list;
  for (const CompiledPlant& p : kHilPlants) {
    compiled = compiled || isCompiled(scenario, p);
    const std::string name = std::to_string(p.elements) + " " + meshName(p.mesh);
    if (list.find(name) == std::string::npos) list += (list.empty() ? "" : ", ") + name;
  }
  if (!compiled) {
    error = scenario.file + ": key 'belt.elements': hil runs " + list + " elements (got " +
            std::to_string(scenario.elements) + " " +
            meshName(scenario.eulerianMesh ? PlantMesh::kEulerian : PlantMesh::kMaterial) + ")";
    return false;
  }
  if (!plantConfigFromScenario(scenario, config, error)) return false;
  loopOptions = fw::LoopOptions{};
  loopOptions.maxHeldTicks = opt.lockstep ? 0 : opt.hold;
  if (opt.encoderCountsPerRevolution > 0.0) config.sensors.encoderCountsPerRevolution = opt.encoderCountsPerRevolution;
  if (opt.loadCellResolution > 0.0) config.sensors.loadCellResolution = opt.loadCellResolution;
  return true;
}

// withPlantOf over the compiled plants kHilPlants[I...]: the first that the scenario takes.
template <std::size_t... I, class Run>
int withPlantIn(std::index_sequence<I...>, const Scenario& scenario, const PlantConfig& config, Run&& run) {
  using Two = std::integral_constant<int, 2>;
  using Eight = std::integral_constant<int, kMaxPlantPulleys>;
  int result = 2;
  bool found = false;
  auto tryPlant = [&](auto ne, auto mesh, auto twoCircles, const CompiledPlant& p) {
    if (found || !isCompiled(scenario, p)) return;
    found = true;
    if constexpr (decltype(twoCircles)::value) {
      if (config.pulleyCount == 2) {
        result = run(ne, Two{}, mesh);
        return;
      }
    }
    result = run(ne, Eight{}, mesh);
  };
  (tryPlant(std::integral_constant<int, kHilPlants[I].elements>{},
            std::integral_constant<PlantMesh, kHilPlants[I].mesh>{},
            std::bool_constant<kHilPlants[I].twoCircles>{}, kHilPlants[I]),
   ...);
  return result;
}

// Calls run(elements, circles, mesh) (std::integral_constant arguments) with the compiled plant a
// scenario takes (buildPlant checked that there is one): its mesh and element count; two pulleys
// on the build of two circles (the firmware's bits), more on that of eight.
template <class Run>
int withPlantOf(const Scenario& scenario, const PlantConfig& config, Run&& run) {
  return withPlantIn(std::make_index_sequence<kHilPlantCount>{}, scenario, config, std::forward<Run>(run));
}

}  // namespace

int runHil(const HilOptions& opt) {
  std::string error;
  Scenario scenario;
  PlantConfig config;
  fw::LoopOptions loopOptions;
  if (!buildPlant(opt, opt.scenarioPath, scenario, config, loopOptions, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (!prepareOutputDirectory(opt.outputDirectory, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  RecordingHeader header;
  bool ok = false;
  header.scenarioName = std::filesystem::path(opt.scenarioPath).filename().string();
  header.scenarioText = readFile(opt.scenarioPath, ok);
  header.options = optionsText(opt);
  return withPlantOf(scenario, config, [&](auto ne, auto np, auto mesh) {
    return runHilWith<decltype(ne)::value, decltype(np)::value, decltype(mesh)::value>(opt, config, loopOptions,
                                                                                       header);
  });
}

int runReplay(const std::string& recordingPath, const std::string& outputDirectory) {
  std::string error;
  RecordingHeader header;
  std::vector<RecordedEvent> events;
  if (!readRecording(recordingPath, header, events, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  HilOptions opt;
  if (!optionsFromText(header.options, opt)) {
    std::fprintf(stderr, "error: %s: malformed options block\n", recordingPath.c_str());
    return 2;
  }
  if (!prepareOutputDirectory(outputDirectory, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  // The scenario travels inside the recording; it is parsed again from a copy in the output folder.
  const std::string scenarioCopy = outputDirectory + "/" + header.scenarioName;
  std::ofstream(scenarioCopy, std::ios::binary) << header.scenarioText;
  Scenario scenario;
  PlantConfig config;
  fw::LoopOptions loopOptions;
  if (!buildPlant(opt, scenarioCopy, scenario, config, loopOptions, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  const bool actingRecorded = header.version >= 4;
  // The recording replays on the mesh its scenario names.
  return withPlantOf(scenario, config, [&](auto ne, auto np, auto mesh) {
    return replayWith<decltype(ne)::value, decltype(np)::value, decltype(mesh)::value>(config, loopOptions, events,
                                                                                       actingRecorded, outputDirectory);
  });
}

}  // namespace beltsim::host
