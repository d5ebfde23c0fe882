// The emulated encoders and load cells and the sensor kinds of the injected faults
// (system/emulated_sensors.hpp; docs/injected_faults.md, "Sensors"). Each fault is checked
// exactly against the reading it acts on; the random kinds against their statistics (a binomial
// bound, a standard deviation) and their seed. Every target: the noise's sum prints as bits.
#include <cmath>

#include "beltsim/system/emulated_sensors.hpp"
#include "minitest.hpp"

using namespace beltsim;

namespace {

constexpr double kStep = 1e-3;          // s
constexpr double kOmega = 10.0;         // rad/s, the pulleys' steady turn
constexpr double kCpr = 4096.0;         // counts per revolution
constexpr double kResolution = 0.5;     // N

InjectedFault sensorFault(InjectedFaultKind kind, int target, double start, double value) {
  InjectedFault f;
  f.kind = kind;
  f.pulley = target;
  f.start = start;
  f.ramp = isSteppedFault(kind) ? 0.0 : 0.01;
  f.value = value;
  return f;
}

// The truth of step n: both pulleys turn at kOmega (pulley 1 backwards), the spans carry
// 400 + 0.3 n N and 100 N.
struct Truth {
  double angle[2], spanForce[2];
  explicit Truth(int n) {
    angle[0] = kOmega * n * kStep;
    angle[1] = -kOmega * n * kStep;
    spanForce[0] = 400.0 + 0.3 * n;
    spanForce[1] = 100.0;
  }
};

std::int64_t truthCount(double angle) { return static_cast<std::int64_t>(std::floor(angle * (kCpr / (2.0 * 3.14159265358979323846)))); }
double truthLoad(double force) { return std::floor(force / kResolution + 0.5) * kResolution; }

// Steps 1..steps read into `encoder` and `load` (per step n: [n]).
struct Trace {
  std::int32_t encoder[2][3001];
  double load[2][3001];
};
bool run(const InjectedFaultSchedule& schedule, int steps, Trace& trace) {
  SensorSettings settings;
  settings.encoderCountsPerRevolution = kCpr;
  settings.loadCellResolution = kResolution;
  EmulatedSensors<2> sensors;
  if (!sensors.setUp(settings, schedule, 2).ok()) return false;
  for (int n = 1; n <= steps; ++n) {
    const Truth truth(n);
    sensors.read(n * kStep, truth.angle, truth.spanForce);
    for (int i = 0; i < 2; ++i) {
      trace.encoder[i][n] = sensors.encoderCount(i);
      trace.load[i][n] = sensors.loadCell(i);
    }
  }
  return true;
}

Trace a, b;  // static: too large for a bare-metal stack

}  // namespace

MT_TEST(without_faults_the_readings_are_the_quantised_truth) {
  // encoder floor(angle / 2 pi * cpr); load cell round(force / resolution) * resolution.
  InjectedFaultSchedule none;
  MT_EXPECT(run(none, 1000, a));
  for (int n = 1; n <= 1000; n += 37) {
    const Truth truth(n);
    MT_EXPECT(a.encoder[0][n] == truthCount(truth.angle[0]));
    MT_EXPECT(a.encoder[1][n] == truthCount(truth.angle[1]));
    MT_EXPECT_NEAR(a.load[0][n], truthLoad(truth.spanForce[0]), 0.0);
  }
}

MT_TEST(encoder_offset_and_load_cell_offset_and_gain_are_exact) {
  // At level 1: count + offset; (q * gain) + offset, with q the quantised force.
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderOffset, 0, 0.5005, -250.0);
  s.fault[1] = sensorFault(InjectedFaultKind::kLoadCellGain, 0, 0.5005, 0.97);
  s.fault[2] = sensorFault(InjectedFaultKind::kLoadCellOffset, 0, 0.5005, 12.25);
  s.count = 3;
  MT_EXPECT(run(s, 1000, a));
  for (int n = 1; n <= 500; n += 50) MT_EXPECT(a.encoder[0][n] == truthCount(Truth(n).angle[0]));
  for (int n = 520; n <= 1000; n += 7) {
    const Truth truth(n);
    MT_EXPECT(a.encoder[0][n] == truthCount(truth.angle[0]) - 250);
    MT_EXPECT(a.encoder[1][n] == truthCount(truth.angle[1]));  // another pulley: untouched
    MT_EXPECT_NEAR(a.load[0][n], truthLoad(truth.spanForce[0]) * 0.97 + 12.25, 0.0);
    MT_EXPECT_NEAR(a.load[1][n], truthLoad(truth.spanForce[1]), 0.0);
  }
  // Inside the ramp the offset is rounded to whole counts and moves by at most what the level does.
  MT_EXPECT(a.encoder[0][505] < truthCount(Truth(505).angle[0]) && a.encoder[0][505] > truthCount(Truth(505).angle[0]) - 250);
}

MT_TEST(encoder_stuck_holds_the_count_at_start_and_the_counts_it_missed_stay_lost) {
  // Stuck from 0.4005 s (the step at 0.4 s is the last it counts) to 0.7005 s; after it the counter goes on
  // from the held count with the truth's increments.
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderStuck, 0, 0.4005, 0.0);
  s.fault[0].hasEnd = true;
  s.fault[0].end = 0.7005;
  s.count = 1;
  MT_EXPECT(run(s, 1000, a));
  const std::int64_t held = truthCount(Truth(400).angle[0]);
  MT_EXPECT(a.encoder[0][400] == held);
  for (int n = 401; n <= 700; ++n) MT_EXPECT(a.encoder[0][n] == held);
  const std::int64_t missed = truthCount(Truth(700).angle[0]) - held;
  MT_EXPECT(missed > 100);
  for (int n = 701; n <= 1000; n += 11) MT_EXPECT(a.encoder[0][n] == truthCount(Truth(n).angle[0]) - missed);
}

MT_TEST(encoder_reverse_counts_on_from_the_count_at_start_the_other_way) {
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderReverse, 1, 0.3005, 0.0);
  s.count = 1;
  MT_EXPECT(run(s, 1000, a));
  const std::int64_t atStart = truthCount(Truth(300).angle[1]);
  MT_EXPECT(a.encoder[1][300] == atStart);
  for (int n = 301; n <= 1000; n += 13)
    MT_EXPECT(a.encoder[1][n] == atStart - (truthCount(Truth(n).angle[1]) - atStart));
  MT_EXPECT(a.encoder[1][1000] > a.encoder[1][300]);  // pulley 2 turns backwards, its reading forwards
}

MT_TEST(encoder_dropout_loses_counts_at_its_rate_and_they_stay_lost) {
  // Rate 0.1 from 0.2005 s to 0.8005 s (the steps 201 to 800): the lost counts L of the n counts in between are binomial,
  // |L - 0.1 n| below 5 standard deviations sqrt(n 0.1 0.9); afterwards the reading is the truth
  // minus L, for good. The reading never runs backwards.
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderDropout, 0, 0.2005, 0.1);
  s.fault[0].ramp = 1e-9;  // at once, so that the count in between sees the whole rate
  s.fault[0].hasEnd = true;
  s.fault[0].end = 0.8005;
  s.fault[0].seed = 7;
  s.count = 1;
  MT_EXPECT(run(s, 1000, a));
  const double counted = static_cast<double>(truthCount(Truth(800).angle[0]) - truthCount(Truth(200).angle[0]));
  const double lost = static_cast<double>(truthCount(Truth(1000).angle[0]) - a.encoder[0][1000]);
  MT_EXPECT(counted > 3000.0);
  MT_EXPECT(std::fabs(lost - 0.1 * counted) < 5.0 * std::sqrt(counted * 0.1 * 0.9));
  for (int n = 801; n <= 1000; n += 9) MT_EXPECT(a.encoder[0][n] == truthCount(Truth(n).angle[0]) - static_cast<std::int64_t>(lost));
  for (int n = 2; n <= 1000; ++n) MT_EXPECT(a.encoder[0][n] >= a.encoder[0][n - 1]);
}

MT_TEST(noise_has_its_standard_deviation_and_the_seed_fixes_the_numbers) {
  // From 0.1005 s on: the load cell's noise (std 2 N) and the encoder's (std 3 counts; rounded to whole
  // counts its variance is 9 + 1/12 for a smooth draw). Over 2900 readings: means near 0, standard
  // deviations within 5 %. The same seed gives the same readings, another seed others.
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kLoadCellNoise, 1, 0.1005, 2.0);
  s.fault[0].ramp = 1e-9;
  s.fault[0].seed = 11;
  s.fault[1] = sensorFault(InjectedFaultKind::kEncoderNoise, 0, 0.1005, 3.0);
  s.fault[1].ramp = 1e-9;
  s.fault[1].seed = 11;
  s.count = 2;
  MT_EXPECT(run(s, 3000, a));
  double sumL = 0.0, sumL2 = 0.0, sumE = 0.0, sumE2 = 0.0, bits = 0.0;
  const int first = 101, count = 3000 - first + 1;
  for (int n = first; n <= 3000; ++n) {
    const double dl = a.load[1][n] - truthLoad(Truth(n).spanForce[1]);
    const double de = static_cast<double>(a.encoder[0][n] - truthCount(Truth(n).angle[0]));
    sumL += dl;
    sumL2 += dl * dl;
    sumE += de;
    sumE2 += de * de;
    bits += a.load[1][n];
  }
  const double meanL = sumL / count, meanE = sumE / count;
  MT_EXPECT(std::fabs(meanL) < 5.0 * 2.0 / std::sqrt(count));
  MT_EXPECT(std::fabs(meanE) < 5.0 * 3.0 / std::sqrt(count));
  MT_EXPECT_NEAR(std::sqrt(sumL2 / count - meanL * meanL), 2.0, 0.05 * 2.0);
  MT_EXPECT_NEAR(std::sqrt(sumE2 / count - meanE * meanE), std::sqrt(9.0 + 1.0 / 12.0), 0.05 * 3.0);
  MT_EXPECT(run(s, 3000, b));
  int same = 0;
  for (int n = 1; n <= 3000; ++n) same += a.load[1][n] == b.load[1][n] && a.encoder[0][n] == b.encoder[0][n];
  MT_EXPECT(same == 3000);
  s.fault[0].seed = 12;
  MT_EXPECT(run(s, 3000, b));
  int differ = 0;
  for (int n = first; n <= 3000; ++n) differ += a.load[1][n] != b.load[1][n];
  MT_EXPECT(differ > 2000);
  minitest::print("BITS load_cell_noise_sum ");
  minitest::printHexBits(bits);
  minitest::print("\n");
}

MT_TEST(load_cell_stuck_holds_the_reading_at_start_then_reads_the_truth_again) {
  InjectedFaultSchedule s;
  s.fault[0] = sensorFault(InjectedFaultKind::kLoadCellStuck, 0, 0.2505, 0.0);
  s.fault[0].hasEnd = true;
  s.fault[0].end = 0.5005;
  s.count = 1;
  MT_EXPECT(run(s, 1000, a));
  const double held = truthLoad(Truth(250).spanForce[0]);
  for (int n = 250; n <= 500; ++n) MT_EXPECT_NEAR(a.load[0][n], held, 0.0);
  for (int n = 501; n <= 1000; n += 17) MT_EXPECT_NEAR(a.load[0][n], truthLoad(Truth(n).spanForce[0]), 0.0);
}

MT_TEST(the_schedule_refuses_sensor_faults_without_a_target_or_with_values_out_of_range) {
  InjectedFaultSchedule s;
  s.count = 1;
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderOffset, 0, 0.1, 3.0);
  MT_EXPECT(s.validate(2).ok());
  s.fault[0].value = 2.5;  // counts are whole
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderStuck, -1, 0.1, 0.0);  // every pulley: no
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0] = sensorFault(InjectedFaultKind::kLoadCellStuck, 2, 0.1, 0.0);  // a third span of two
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0] = sensorFault(InjectedFaultKind::kLoadCellStuck, 1, 0.1, 0.0);
  s.fault[0].ramp = 0.01;  // stuck has no level in between
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderDropout, 0, 0.1, 1.5);  // a probability
  MT_EXPECT(!s.validate(2).ok());
  s.fault[0] = sensorFault(InjectedFaultKind::kLoadCellNoise, 0, 0.1, 0.0);  // no noise is no fault
  MT_EXPECT(!s.validate(2).ok());
  // Sensor kinds never reach the plant: no friction or stiffness change.
  s.fault[0] = sensorFault(InjectedFaultKind::kEncoderNoise, 0, 0.1, 2.0);
  MT_EXPECT(s.validate(2).ok());
  MT_EXPECT_NEAR(s.frictionCoefficient(0, 1.0, 0.5), 0.5, 0.0);
  MT_EXPECT_NEAR(s.axialStiffnessFactor(1.0), 1.0, 0.0);
}
