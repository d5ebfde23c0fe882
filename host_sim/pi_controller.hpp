// The reference drive controller of beltctl: a PI speed controller for the torque-driven motor
// pulley, with a torque limit and anti-windup by conditional integration (the integrator stops
// while the output saturates in the direction the error pushes), and a speed estimate from the
// plant's emulated incremental encoder. Written to be copied: no dependencies beyond <cmath>.
#pragma once
#include <cmath>
#include <cstdint>

namespace beltsim::host {

struct PiSettings {
  double kp = 10.0;           // N m per rad/s (about J_total x 20 rad/s bandwidth, J_total ~ 0.5 kg m^2)
  double ki = 50.0;           // N m per rad
  double torqueLimit = 60.0;  // N m (the load point of the paper needs ~49 N m: 25 N m load + 2 N m s x 12 rad/s damping)
};

class PiSpeedController {
 public:
  explicit PiSpeedController(const PiSettings& s) : s_(s) {}

  // One control period h: returns the motor torque command.
  double update(double reference, double measured, double h) {
    const double error = reference - measured;
    const double unclamped = s_.kp * error + integral_;
    const bool saturatedHigh = unclamped > s_.torqueLimit && error > 0.0;
    const bool saturatedLow = unclamped < -s_.torqueLimit && error < 0.0;
    if (!saturatedHigh && !saturatedLow) integral_ += s_.ki * error * h;  // anti-windup
    const double u = s_.kp * error + integral_;
    return u > s_.torqueLimit ? s_.torqueLimit : u < -s_.torqueLimit ? -s_.torqueLimit : u;
  }
  double integral() const { return integral_; }

 private:
  PiSettings s_;
  double integral_ = 0.0;
};

// Speed from encoder counts: difference over the last `window` frames, divided by the time
// between them from the frames' step numbers (resolution 2 pi / (counts per revolution x window
// x h): 0.024 rad/s for 65536 counts, 4 periods of 1 ms). Fed only with frames that arrived: a
// missing frame is no stopped encoder, and a frame that comes after a gap spans its real time.
class EncoderSpeedEstimator {
 public:
  static constexpr int kMaxWindow = 64;
  EncoderSpeedEstimator(double countsPerRevolution, int window)
      : cpr_(countsPerRevolution), window_(window < 1 ? 1 : window > kMaxWindow ? kMaxWindow : window) {}

  // counts and step number of a received frame; h: the plant's step, s.
  double update(std::int32_t counts, std::uint32_t step, double h) {
    counts_[next_] = counts;
    steps_[next_] = step;
    next_ = (next_ + 1) % (kMaxWindow + 1);
    if (filled_ < window_ + 1) ++filled_;
    const int span = filled_ - 1;
    if (span == 0) return 0.0;
    const int oldest = (next_ + kMaxWindow + 1 - 1 - span) % (kMaxWindow + 1);
    const std::uint32_t steps = step - steps_[oldest];
    if (steps == 0) return 0.0;
    return static_cast<double>(counts - counts_[oldest]) / cpr_ * (2.0 * 3.141592653589793) /
           (static_cast<double>(steps) * h);
  }

 private:
  double cpr_;
  int window_;
  std::int32_t counts_[kMaxWindow + 1] = {};
  std::uint32_t steps_[kMaxWindow + 1] = {};
  int next_ = 0;
  int filled_ = 0;
};

}  // namespace beltsim::host
