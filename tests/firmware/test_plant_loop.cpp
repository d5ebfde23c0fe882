// The firmware loop's policies (firmware/plant_loop.hpp) and its frames (firmware/frames.hpp),
// on the microcontroller configuration. The images in firmware.cmake run the same loop on every
// target; these tests pin the individual behaviours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

#include "frames.hpp"
#include "input_script.hpp"
#include "paper_scenario.hpp"
#include "plant_config.hpp"
#include "plant_loop.hpp"
#include "timing_stats.hpp"

namespace beltsim::fw {
namespace {

using Loop = PlantLoop<kMicrocontrollerElements, 2, kMicrocontrollerMesh>;

std::unique_ptr<Loop> startedLoop(const PlantConfig& config, const LoopOptions& options = LoopOptions{}) {
  auto loop = std::make_unique<Loop>();
  EXPECT_TRUE(loop->setUp(config, options).ok());
  const StaticResult statics = loop->start(true);
  EXPECT_TRUE(statics.converged);
  return loop;
}

// Feeds tick k's scripted frame through the decoder, as main.cpp does.
const OutputFrame& scriptedTick(Loop& loop, std::uint32_t tick, bool defects) {
  std::uint8_t wire[kCommandFrameSize];
  scriptedCommandBytes(tick, loop.plant().config().stepSize, commandFrameFor(loop.plant().config()), defects, wire);
  CommandFrame f;
  if (decodeCommand(wire, kCommandFrameSize, f) != DecodeError::kNone) {
    loop.countUndecodableFrame();
    return loop.tick(nullptr, 1);
  }
  return loop.tick(&f, 1);
}

bool samePhysics(const OutputFrame& a, const OutputFrame& b) {
  std::uint8_t ea[kOutputFrameSize], eb[kOutputFrameSize];
  OutputFrame x = a, y = b;
  x.rejectedFrames = y.rejectedFrames = 0;
  x.corruptFrames = y.corruptFrames = x.invalidFrames = y.invalidFrames = 0;
  x.staleFrames = y.staleFrames = x.supersededFrames = y.supersededFrames = 0;
  x.commandSequence = y.commandSequence = 0;
  x.lateFrames = y.lateFrames = 0;
  encodeOutput(x, ea);
  encodeOutput(y, eb);
  return std::memcmp(ea, eb, kOutputFrameSize) == 0;
}

TEST(FrameCodec, CommandRoundTripIsExact) {
  CommandFrame f;
  f.sequence = 0xA1B2C3D4u;
  f.pulleyCount = 8;
  for (int i = 0; i < kFramePulleys; ++i) {
    f.inputKind[i] = static_cast<std::uint8_t>(i % 4);
    f.input[i] = -3.141592653589793 * (i + 1);
  }
  std::uint8_t wire[kCommandFrameSize];
  encodeCommand(f, wire);
  CommandFrame g;
  ASSERT_EQ(decodeCommand(wire, sizeof wire, g), DecodeError::kNone);
  EXPECT_EQ(g.sequence, f.sequence);
  EXPECT_EQ(g.pulleyCount, 8);
  EXPECT_EQ(std::memcmp(g.inputKind, f.inputKind, sizeof f.inputKind), 0);
  EXPECT_EQ(std::memcmp(g.input, f.input, sizeof f.input), 0);
  // Little-endian on the wire, whatever the host: sequence bytes D4 C3 B2 A1 at offset 4;
  // PROTOCOL.md's offsets: pulley count at 8, input kinds from 12, inputs from 20.
  EXPECT_EQ(wire[4], 0xD4);
  EXPECT_EQ(wire[7], 0xA1);
  EXPECT_EQ(wire[8], 8);
  EXPECT_EQ(wire[12 + 3], 3);
  double last;
  std::memcpy(&last, wire + 20 + 7 * 8, 8);  // little-endian host (x86-64, aarch64, Cortex-M7)
  EXPECT_EQ(last, f.input[7]);
}

// Protocol version 1 (32-byte commands, firmware/PROTOCOL.md history) is refused as a version
// mismatch, not as a frame of the wrong length: the reason a stale controller gets is "version".
TEST(FrameCodec, VersionOneCommandIsRefusedForItsVersion) {
  std::uint8_t v1[32] = {'B', 'D', 1, 1};
  const std::uint32_t crc = crc32(v1, 28);
  for (int i = 0; i < 4; ++i) v1[28 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
  CommandFrame out;
  EXPECT_EQ(decodeCommand(v1, sizeof v1, out), DecodeError::kVersion);
  // and in a byte stream it is skipped as garbage: no frame comes out of it
  CommandStream stream;
  stream.push(v1, sizeof v1);
  std::uint8_t frame[kCommandFrameSize];
  EXPECT_FALSE(stream.pop(frame));
}

TEST(FrameCodec, OutputRoundTripKeepsEveryPulleySlot) {
  OutputFrame o;
  o.pulleyCount = 8;
  for (int i = 0; i < kFramePulleys; ++i) {
    o.angle[i] = 0.1 * i;
    o.speed[i] = -1.5 * i;
    o.torque[i] = 2.25 * i;
    o.spanForce[i] = 100.0 + i;
    o.armAngle[i] = -0.01 * i;
    o.encoderCount[i] = -1000 * i;
    o.loadCell[i] = 99.5 + i;
    o.inputKind[i] = static_cast<std::uint8_t>(i % 4);
  }
  o.overruns = 7;
  o.lateFrames = 9;
  o.corruptFrames = 1;
  o.invalidFrames = 2;
  o.staleFrames = 3;
  o.supersededFrames = 4;
  o.computeOverruns = 5;
  o.residualNorm = 3.25e-4;
  o.pnsError = 12.5;
  std::uint8_t wire[kOutputFrameSize];
  encodeOutput(o, wire);
  OutputFrame g;
  ASSERT_EQ(decodeOutput(wire, sizeof wire, g), DecodeError::kNone);
  for (int i = 0; i < kFramePulleys; ++i) {
    EXPECT_EQ(g.angle[i], o.angle[i]);
    EXPECT_EQ(g.speed[i], o.speed[i]);
    EXPECT_EQ(g.torque[i], o.torque[i]);
    EXPECT_EQ(g.spanForce[i], o.spanForce[i]);
    EXPECT_EQ(g.armAngle[i], o.armAngle[i]);
    EXPECT_EQ(g.encoderCount[i], o.encoderCount[i]);
    EXPECT_EQ(g.loadCell[i], o.loadCell[i]);
    EXPECT_EQ(g.inputKind[i], o.inputKind[i]);
  }
  EXPECT_EQ(g.pulleyCount, 8);
  EXPECT_EQ(g.corruptFrames, 1u);
  EXPECT_EQ(g.invalidFrames, 2u);
  EXPECT_EQ(g.staleFrames, 3u);
  EXPECT_EQ(g.supersededFrames, 4u);
  EXPECT_EQ(g.computeOverruns, 5u);
  EXPECT_EQ(g.residualNorm, 3.25e-4);
  EXPECT_EQ(g.pnsError, 12.5);
  // The wall-clock bytes (overruns 456..459, late frames 464..467, superseded frames and compute
  // overruns 480..487, CRC 504..507) are what TraceHash skips; the rejections by cause before them
  // and the step's residual and post-Newton error (488..503, version 3) are not.
  EXPECT_EQ(wire[456], 7);
  EXPECT_EQ(wire[464], 9);
  EXPECT_EQ(wire[476], 3);
  EXPECT_EQ(wire[484], 5);
  EXPECT_TRUE(isTimingByte(456) && isTimingByte(467) && isTimingByte(480) && isTimingByte(487) && isTimingByte(504) &&
              isTimingByte(507));
  EXPECT_FALSE(isTimingByte(460) || isTimingByte(455) || isTimingByte(468) || isTimingByte(479) || isTimingByte(488) ||
               isTimingByte(503));
}

TEST(FrameCodec, Crc32IsTheIeeeCheckValue) {
  // The standard check value of CRC-32/ISO-HDLC: crc("123456789") = 0xCBF43926.
  const std::uint8_t text[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(crc32(text, 9), 0xCBF43926u);
}

TEST(FrameCodec, TheTableCrcEqualsTheBitwiseDefinitionOverAnOutputFrame) {
  // The polynomial division one bit at a time (reflected 0xEDB88320, init and final xor all ones)
  // against the byte-table form of frames.hpp, over 488 bytes of every value.
  std::uint8_t bytes[488];
  std::uint32_t state = 12345u;
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>((state = state * 1664525u + 1013904223u) >> 24);
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::uint8_t b : bytes) {
    crc ^= b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  EXPECT_EQ(crc32(bytes, sizeof bytes), ~crc);
}

TEST(FrameCodec, EveryMalformedCommandFrameIsRefusedWithItsReason) {
  CommandFrame f;
  std::uint8_t good[kCommandFrameSize];
  encodeCommand(f, good);
  CommandFrame out;
  // Truncated: a heap buffer of exactly the short length, so a read past it trips ASan.
  auto shortBuffer = std::make_unique<std::uint8_t[]>(kCommandFrameSize - 1);
  std::memcpy(shortBuffer.get(), good, kCommandFrameSize - 1);
  EXPECT_EQ(decodeCommand(shortBuffer.get(), kCommandFrameSize - 1, out), DecodeError::kTruncated);
  std::uint8_t longer[kCommandFrameSize + 1] = {};
  std::memcpy(longer, good, kCommandFrameSize);
  EXPECT_EQ(decodeCommand(longer, sizeof longer, out), DecodeError::kOversized);
  auto corrupt = [&](int at, std::uint8_t value) {
    std::uint8_t b[kCommandFrameSize];
    std::memcpy(b, good, sizeof b);
    b[at] = value;
    return decodeCommand(b, sizeof b, out);
  };
  EXPECT_EQ(corrupt(0, 'X'), DecodeError::kMagic);
  EXPECT_EQ(corrupt(2, 1), DecodeError::kVersion);  // a version-1 header
  EXPECT_EQ(corrupt(3, kFrameTypeOutput), DecodeError::kType);
  EXPECT_EQ(corrupt(15, 0x7F), DecodeError::kCrc);
}

TEST(CommandValidation, NonFiniteOutOfRangeAndWrongModeAreRejected) {
  const PlantConfig c = microcontrollerPlantConfig(MotorMode::kSpeed);
  CommandFrame f = commandFrameFor(c);
  ASSERT_EQ(f.pulleyCount, 2);
  ASSERT_EQ(f.inputKind[0], 1);  // speed
  ASSERT_EQ(f.inputKind[1], 3);  // load torque
  f.input[0] = 12.0;
  EXPECT_EQ(validateCommand(f, c), Rejection::kNone);
  f.input[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(validateCommand(f, c), Rejection::kNotFinite);
  f.input[0] = 12.0;
  f.input[1] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(validateCommand(f, c), Rejection::kNotFinite);
  f.input[1] = c.limits.maxLoadTorque * 1.01;
  EXPECT_EQ(validateCommand(f, c), Rejection::kOutOfRange);
  f.input[1] = 0.0;
  f.input[0] = c.limits.maxMotorSpeed * 1.01;
  EXPECT_EQ(validateCommand(f, c), Rejection::kOutOfRange);
  f.input[0] = 1.0;
  f.input[5] = 1e-3;  // a slot beyond the plant's pulleys must be 0
  EXPECT_EQ(validateCommand(f, c), Rejection::kOutOfRange);
  f.input[5] = 0.0;
  f.inputKind[0] = 2;  // a torque command to a speed drive
  EXPECT_EQ(validateCommand(f, c), Rejection::kWrongMode);
  f.inputKind[0] = 1;
  f.pulleyCount = 3;  // a controller built for another drive
  f.inputKind[2] = 3;
  EXPECT_EQ(validateCommand(f, c), Rejection::kWrongMode);
  f.pulleyCount = 2;
  f.inputKind[2] = 0;
  f.flags = 0x80;  // no flags are defined in version 2
  EXPECT_EQ(validateCommand(f, c), Rejection::kOutOfRange);
}

// Issue 6 "bad input": a rejected frame holds the last valid command, is counted, and changes
// nothing else: the loop fed the script with its six defects (NaN, Inf, out of range, wrong mode,
// duplicate sequence, bad CRC) must agree bit for bit with a loop that simply received no frame
// at those ticks.
TEST(PlantLoop, RejectedFramesActLikeNoFrameAndAreCounted) {
  const PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  auto reference = startedLoop(config);
  auto faulty = startedLoop(config);
  for (std::uint32_t tick = 1; tick <= 290; ++tick) {
    const bool defect = scriptedDefectAt(tick) != ScriptedDefect::kNone;
    const OutputFrame& a = defect ? reference->tick(nullptr, 1) : scriptedTick(*reference, tick, false);
    const OutputFrame& b = scriptedTick(*faulty, tick, true);
    ASSERT_TRUE(samePhysics(a, b)) << "tick " << tick;
  }
  EXPECT_EQ(reference->rejectedFrames(), 0u);
  EXPECT_EQ(faulty->rejectedFrames(), kScriptedDefectCount);
  // By cause (input_script.hpp): NaN, Inf, out of range, wrong mode are invalid; the duplicate
  // sequence is stale; the flipped bit is corrupt (refused by the decoder).
  const OutputFrame& last = faulty->tick(nullptr, 1);
  EXPECT_EQ(last.invalidFrames, 4u);
  EXPECT_EQ(last.staleFrames, 1u);
  EXPECT_EQ(last.corruptFrames, 1u);
  EXPECT_EQ(last.supersededFrames, 0u);
  EXPECT_FALSE(faulty->safeState());
  // The last frame (tick 290, valid) is still in use: the ramp 12 (t - 0.05) / 0.3 at t = 0.29 s.
  EXPECT_DOUBLE_EQ(faulty->heldCommand().input[0], 12.0 * (0.29 - 0.05) / 0.3);
}

TEST(PlantLoop, TooManyNonConvergedStepsEnterTheSafeStateAndTheLoopKeepsAnswering) {
  PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  // One Newton iteration cannot meet the reference tolerances once the belt moves (either
  // stepping: the fixed-cost one, with one post-Newton pass, then flags every step whose
  // remainder exceeds 1e-7 N; its passes as shipped converge further).
  config.integrator.maxNewtonIterations = 1;
  config.integrator.relativeTolerance = 1e-8;
  config.integrator.absoluteTolerance = 1e-7;
  config.integrator.fixedNewtonIterations = 1;
  config.integrator.frozenStateIterations = 1;
  config.integrator.postNewtonPasses = 1;
  config.integrator.fixedResidualTolerance = 1e-7;
  LoopOptions options;
  options.maxConsecutiveNonConverged = 5;
  auto loop = startedLoop(config, options);
  std::uint32_t safeAt = 0;
  for (std::uint32_t tick = 1; tick <= 120 && safeAt == 0; ++tick) {
    const OutputFrame& o = scriptedTick(*loop, tick, false);
    if (o.safeState) safeAt = tick;
  }
  ASSERT_GT(safeAt, 0u);
  EXPECT_EQ(loop->fault(), FaultCode::kNonConvergence);
  // Later ticks still answer: safe values, fault code, advancing step and time.
  const OutputFrame& later = loop->tick(nullptr, 1);
  EXPECT_EQ(later.safeState, 1);
  EXPECT_EQ(later.fault, FaultCode::kNonConvergence);
  EXPECT_EQ(later.step, safeAt + 1);
  EXPECT_DOUBLE_EQ(later.time, (safeAt + 1) * config.stepSize);
  EXPECT_EQ(later.speed[0], 0.0);
  EXPECT_EQ(later.torque[0], 0.0);
  EXPECT_EQ(later.spanForce[0], 0.0);
}

TEST(PlantLoop, OverrunIsCountedOrEntersTheSafeStateByPolicy) {
  const PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  auto counting = startedLoop(config);
  counting->tick(nullptr, 1);
  const OutputFrame& c = counting->tick(nullptr, 3);  // two ticks missed: the machine woke up late
  EXPECT_EQ(c.overruns, 2u);
  EXPECT_EQ(c.computeOverruns, 0u);
  EXPECT_EQ(c.safeState, 0);
  const OutputFrame& d = counting->tick(nullptr, 2, OverrunCause::kCompute);  // the step itself ran long
  EXPECT_EQ(d.overruns, 3u);
  EXPECT_EQ(d.computeOverruns, 1u);
  LoopOptions strict;
  strict.overrunPolicy = OverrunPolicy::kSafeState;
  auto safe = startedLoop(config, strict);
  safe->tick(nullptr, 1);
  const OutputFrame& s = safe->tick(nullptr, 2);
  EXPECT_EQ(s.overruns, 1u);
  EXPECT_EQ(s.safeState, 1);
  EXPECT_EQ(s.fault, FaultCode::kOverrun);
}

TEST(PlantLoop, SilentControllerEntersTheSafeStateAfterTheHoldLimit) {
  LoopOptions options;
  options.maxHeldTicks = 3;
  auto loop = startedLoop(microcontrollerPlantConfig(MotorMode::kSpeed), options);
  scriptedTick(*loop, 1, false);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(loop->tick(nullptr, 1).safeState, 0) << "held tick " << i + 1;
  const OutputFrame& o = loop->tick(nullptr, 1);
  EXPECT_EQ(o.safeState, 1);
  EXPECT_EQ(o.fault, FaultCode::kControllerSilent);
  EXPECT_EQ(o.lateFrames, 4u);
}

// Sensors are derived from the ground truth of the same frame: encoder counts
// floor(angle / 2 pi * 65536), load cells the span force rounded to 0.5 N.
TEST(PlantLoop, EmulatedSensorsQuantizeTheGroundTruth) {
  auto loop = startedLoop(microcontrollerPlantConfig(MotorMode::kSpeed));
  OutputFrame o;
  for (std::uint32_t tick = 1; tick <= 150; ++tick) o = scriptedTick(*loop, tick, false);
  ASSERT_GT(o.angle[0], 0.1);  // the ramp has turned the pulleys
  for (int i = 0; i < 2; ++i) {
    const double counts = o.angle[i] * 65536.0 / (2.0 * 3.141592653589793);
    EXPECT_LE(o.encoderCount[i], counts);
    EXPECT_GT(o.encoderCount[i] + 1, counts);
    EXPECT_LE(std::fabs(o.loadCell[i] - o.spanForce[i]), 0.25);
    EXPECT_EQ(std::fmod(o.loadCell[i], 0.5), 0.0);
  }
  EXPECT_GT(o.spanForce[0], 300.0);  // pre-tension 400 N: a real span force, not a zero
}

// Sensor faults scheduled in the configuration (docs/injected_faults.md, "Sensors") act on the
// frame's readings only: an encoder offset on P2 and a load-cell gain on span 1 from tick 100
// (t = 0.1 s) give offset and gain exactly, the loop reports both tables acting to the bench
// (actingFaults) while the frame's byte 455 stays 0, and every other byte of every frame, the
// truth among them, is the unfaulted run's.
TEST(PlantLoop, SensorFaultsChangeTheReadingsAndNotTheTruth) {
  const PlantConfig plain = microcontrollerPlantConfig(MotorMode::kSpeed);
  PlantConfig faulted = plain;
  InjectedFault& offset = faulted.faults.fault[0];
  offset.kind = InjectedFaultKind::kEncoderOffset;
  offset.pulley = 1;
  offset.start = 0.1005;  // between ticks 100 and 101 (time = tick * 1 ms)
  offset.ramp = 1e-9;
  offset.value = 4096.0;
  InjectedFault& gain = faulted.faults.fault[1];
  gain = offset;
  gain.kind = InjectedFaultKind::kLoadCellGain;
  gain.pulley = 0;
  gain.value = 1.25;
  faulted.faults.count = 2;
  auto a = startedLoop(plain);
  auto b = startedLoop(faulted);
  for (std::uint32_t tick = 1; tick <= 200; ++tick) {
    const OutputFrame x = scriptedTick(*a, tick, false);
    OutputFrame y = scriptedTick(*b, tick, false);
    const bool acting = tick > 100;
    EXPECT_EQ(y.encoderCount[1], x.encoderCount[1] + (acting ? 4096 : 0)) << "tick " << tick;
    EXPECT_EQ(y.loadCell[0], acting ? x.loadCell[0] * 1.25 : x.loadCell[0]) << "tick " << tick;
    EXPECT_EQ(b->actingFaults(), acting ? 3 : 0) << "tick " << tick;  // both tables act
    EXPECT_EQ(a->actingFaults(), 0);
    std::uint8_t wire[kOutputFrameSize];
    encodeOutput(y, wire);
    EXPECT_EQ(wire[455], 0) << "tick " << tick;  // never in the controller's frame
    y.encoderCount[1] = x.encoderCount[1];
    y.loadCell[0] = x.loadCell[0];
    ASSERT_TRUE(samePhysics(x, y)) << "tick " << tick;
  }
}

// The test bench's fault frames (firmware/PROTOCOL.md, "Test bench frames") survive encoding
// exactly; a flipped byte fails the CRC.
TEST(FrameCodec, FaultCommandAndAcknowledgementRoundTripAreExact) {
  FaultCommandFrame c;
  c.sequence = 0xA1B2C3D4u;
  c.table = 5;
  c.action = 1;
  c.value = -37.25;
  std::uint8_t wire[kFaultCommandFrameSize];
  encodeFaultCommand(c, wire);
  FaultCommandFrame d;
  ASSERT_EQ(decodeFaultCommand(wire, sizeof wire, d), DecodeError::kNone);
  EXPECT_EQ(d.sequence, c.sequence);
  EXPECT_EQ(d.table, 5);
  EXPECT_EQ(d.action, 1);
  EXPECT_EQ(d.value, -37.25);
  wire[13] ^= 0x40;
  EXPECT_EQ(decodeFaultCommand(wire, sizeof wire, d), DecodeError::kCrc);
  EXPECT_EQ(decodeFaultCommand(wire, sizeof wire - 1, d), DecodeError::kTruncated);
  FaultAckFrame a;
  a.sequence = 7;
  a.table = 2;
  a.result = FaultCommandResult::kNotLive;
  a.action = 1;
  a.injectedFaults = 0x85;
  a.effectiveStep = 123456;
  a.value = 0.3;
  a.accepted = 3;
  a.refused = 4;
  a.foreign = 5;
  a.steps = 123455;
  std::uint8_t ackWire[kFaultAckFrameSize];
  encodeFaultAck(a, ackWire);
  FaultAckFrame b;
  ASSERT_EQ(decodeFaultAck(ackWire, sizeof ackWire, b), DecodeError::kNone);
  EXPECT_EQ(std::memcmp(&a.sequence, &b.sequence, 4), 0);
  EXPECT_EQ(b.table, 2);
  EXPECT_EQ(b.result, FaultCommandResult::kNotLive);
  EXPECT_EQ(b.injectedFaults, 0x85);
  EXPECT_EQ(b.effectiveStep, 123456u);
  EXPECT_EQ(b.value, 0.3);
  EXPECT_EQ(b.accepted + b.refused + b.foreign + b.steps, 3u + 4u + 5u + 123455u);
  // A command frame is not a fault command (its type), so a controller cannot inject through it.
  std::uint8_t command[kCommandFrameSize];
  encodeCommand(CommandFrame{}, command);
  EXPECT_EQ(decodeFaultCommand(command, sizeof wire, d), DecodeError::kType);
}

// A configuration with a live load-cell offset on span 1 (table 0, -50..50 N) and a scheduled,
// not live encoder offset (table 1) that starts after the run.
PlantConfig liveFaultConfig() {
  PlantConfig c = microcontrollerPlantConfig(MotorMode::kSpeed);
  InjectedFault& live = c.faults.fault[0];
  live.kind = InjectedFaultKind::kLoadCellOffset;
  live.pulley = 0;
  live.ramp = 0.005;
  live.value = 20.0;
  live.live = true;
  live.liveMin = -50.0;
  live.liveMax = 50.0;
  InjectedFault& scheduled = c.faults.fault[1];
  scheduled.kind = InjectedFaultKind::kEncoderOffset;
  scheduled.pulley = 1;
  scheduled.start = 10.0;
  scheduled.ramp = 0.01;
  scheduled.value = 5.0;
  c.faults.count = 2;
  return c;
}

std::uint8_t faultResult(Loop& loop, std::uint32_t sequence, std::uint8_t table, std::uint8_t action, double value,
                         std::uint32_t* effectiveStep = nullptr) {
  FaultCommandFrame f;
  f.sequence = sequence;
  f.table = table;
  f.action = action;
  f.value = value;
  std::uint8_t wire[kFaultCommandFrameSize];
  encodeFaultCommand(f, wire);
  const FaultAckFrame ack = loop.receiveFaultCommand(wire, sizeof wire);
  if (effectiveStep != nullptr) *effectiveStep = ack.effectiveStep;
  return static_cast<std::uint8_t>(ack.result);
}

// A live table waits for the bench: without a command its run is the run without the table, bit for
// bit. Commands for a table that is not live or absent, an unknown action, a start beyond min..max
// or not finite, a stale sequence, a corrupt frame and any command in the safe state are refused
// with their reason, counted, and change nothing: every frame equals the clean run's
// (docs/injected_faults.md, "Live faults").
TEST(PlantLoop, RefusedFaultCommandsChangeNothingAndALiveTableWaitsForTheBench) {
  PlantConfig clean = liveFaultConfig();
  clean.faults.count = 0;
  auto a = startedLoop(clean);
  auto b = startedLoop(liveFaultConfig());
  using R = FaultCommandResult;
  std::uint32_t accepted = 0;
  for (std::uint32_t tick = 1; tick <= 120; ++tick) {
    if (tick == 30) {
      EXPECT_EQ(faultResult(*b, 1, 1, 1, 5.0), static_cast<std::uint8_t>(R::kNotLive));
      EXPECT_EQ(faultResult(*b, 2, 2, 1, 0.0), static_cast<std::uint8_t>(R::kNoTable));
      EXPECT_EQ(faultResult(*b, 3, 0, 2, 20.0), static_cast<std::uint8_t>(R::kBadAction));
      EXPECT_EQ(faultResult(*b, 4, 0, 1, 50.5), static_cast<std::uint8_t>(R::kOutOfRange));
      EXPECT_EQ(faultResult(*b, 5, 0, 1, -50.5), static_cast<std::uint8_t>(R::kOutOfRange));
      EXPECT_EQ(faultResult(*b, 6, 0, 1, std::numeric_limits<double>::quiet_NaN()),
                static_cast<std::uint8_t>(R::kOutOfRange));
      std::uint8_t corrupt[kFaultCommandFrameSize] = {'B', 'D', 3, 3};
      EXPECT_EQ(b->receiveFaultCommand(corrupt, sizeof corrupt).result, R::kCorrupt);
      // A clear of the live table is accepted (it is cleared already: nothing changes); a clear keeps
      // the table's value, so the command's, even one beyond the range, is not looked at.
      EXPECT_EQ(faultResult(*b, 10, 0, 0, 999.0), static_cast<std::uint8_t>(R::kAccepted));
      ++accepted;
      EXPECT_EQ(faultResult(*b, 10, 0, 1, 20.0), static_cast<std::uint8_t>(R::kStale));
      EXPECT_EQ(faultResult(*b, 9, 0, 1, 20.0), static_cast<std::uint8_t>(R::kStale));
    }
    const OutputFrame x = scriptedTick(*a, tick, false);
    const OutputFrame y = scriptedTick(*b, tick, false);
    ASSERT_TRUE(samePhysics(x, y)) << "tick " << tick;
    ASSERT_EQ(y.loadCell[0], x.loadCell[0]) << "tick " << tick;
  }
  EXPECT_EQ(b->faultCommandsAccepted(), accepted);
  EXPECT_EQ(b->faultCommandsRefused(), 9u);
  EXPECT_EQ(b->steps(), 120u);  // no command took a step
  // In the safe state nothing would act: refused.
  b->controllerSilent();
  EXPECT_EQ(faultResult(*b, 11, 0, 1, 20.0), static_cast<std::uint8_t>(R::kSafeState));
}

// An accepted start acts from the next step: the reading's offset ramps in over the table's ramp
// (5 ms) and is then the commanded value exactly; a new value ramps from where it is; a clear
// ramps back to exactly 0. The truth never changes, and the loop reports the table acting to the
// bench (actingFaults) while it acts.
TEST(PlantLoop, ALiveFaultActsFromTheNextStepAndRampsToTheCommandedValue) {
  PlantConfig clean = liveFaultConfig();
  clean.faults.count = 0;
  auto a = startedLoop(clean);
  auto b = startedLoop(liveFaultConfig());
  // Commands before ticks 21, 81 and 141 (ramp 5 ms = 5 ticks; the level is 0 or 1 from 6 on).
  constexpr std::uint32_t kStart = 21, kChange = 81, kClear = 141;
  std::uint32_t started = 0, changed = 0, cleared = 0;
  for (std::uint32_t tick = 1; tick <= 200; ++tick) {
    if (tick == kStart) {
      EXPECT_EQ(faultResult(*b, 1, 0, 1, 20.0, &started), 0);
    }
    if (tick == kChange) {
      EXPECT_EQ(faultResult(*b, 2, 0, 1, -35.0, &changed), 0);
    }
    if (tick == kClear) {
      EXPECT_EQ(faultResult(*b, 3, 0, 0, -35.0, &cleared), 0);
    }
    const OutputFrame x = scriptedTick(*a, tick, false);
    OutputFrame y = scriptedTick(*b, tick, false);
    const double offset = y.loadCell[0] - x.loadCell[0];
    if (tick < kStart || tick >= kClear + 5) {
      EXPECT_EQ(offset, 0.0) << "tick " << tick;
    }
    if (tick >= kStart + 5 && tick < kChange) {
      EXPECT_EQ(offset, 20.0) << "tick " << tick;
    }
    if (tick >= kChange + 5 && tick < kClear) {
      EXPECT_EQ(offset, -35.0) << "tick " << tick;
    }
    if (tick == kStart) {
      EXPECT_GT(offset, 0.0) << "the first step after the command";
    }
    if (tick >= kChange && tick < kChange + 4) {
      EXPECT_TRUE(offset < 20.0 && offset > -35.0) << "tick " << tick << ": " << offset;
    }
    if (tick != kClear + 4) {
      EXPECT_EQ(b->actingFaults(), tick >= kStart && tick < kClear + 4 ? 1 : 0) << "tick " << tick;
    }
    y.loadCell[0] = x.loadCell[0];
    ASSERT_TRUE(samePhysics(x, y)) << "tick " << tick;
  }
  EXPECT_EQ(started, kStart);
  EXPECT_EQ(changed, kChange);
  EXPECT_EQ(cleared, kClear);
}

// A flood (several frames between two ticks): one step per tick, the newest valid command wins,
// the superseded ones are counted.
TEST(PlantLoop, FloodOfFramesTakesOneStepWithTheNewestCommand) {
  PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  config.pulley[0].maxAcceleration = 0.0;  // the command taken at once: which one is visible
  auto loop = startedLoop(config);
  for (std::uint32_t seq = 1; seq <= 3; ++seq) {
    CommandFrame f = commandFrameFor(loop->plant().config());
    f.sequence = seq;
    f.input[0] = static_cast<double>(seq);
    loop->receive(f);
  }
  const OutputFrame& o = loop->tick(1);
  EXPECT_EQ(o.step, 1u);
  EXPECT_EQ(o.commandSequence, 3u);
  EXPECT_EQ(o.rejectedFrames, 2u);
  EXPECT_EQ(o.supersededFrames, 2u);  // counted as superseded, not as invalid or stale
  EXPECT_EQ(o.invalidFrames + o.staleFrames + o.corruptFrames, 0u);
  EXPECT_EQ(o.speed[0], 3.0);  // without an acceleration limit the pulley follows the newest command exactly
}

// Angular momentum: while the speed command ramps at alpha = 40 rad/s^2 the motor must supply
// (J1 + J2) alpha = 0.5 * 40 = 20 N m more than at constant speed, less the load pulley's damper
// difference d2 (omega(0.36) - omega(0.30)) = 2 * 2 = 4 N m: about 16 N m. A drive torque that
// misses J1 alpha (a speed command read as constant within the step) gives about 6 N m.
TEST(PlantLoop, SpeedCommandRampCostsTheInertiaTorque) {
  auto loop = startedLoop(microcontrollerPlantConfig(MotorMode::kSpeed));
  double duringRamp = 0.0, afterRamp = 0.0;
  for (std::uint32_t tick = 1; tick <= 380; ++tick) {
    const OutputFrame& o = scriptedTick(*loop, tick, false);
    if (tick >= 291 && tick <= 300) duringRamp += o.torque[0] / 10.0;  // mean over 0.291..0.300 s
    if (tick >= 371 && tick <= 380) afterRamp += o.torque[0] / 10.0;   // 0.371..0.380 s
  }
  EXPECT_GT(duringRamp - afterRamp, 12.0);
  EXPECT_LT(duringRamp - afterRamp, 20.0);
}

// A motor with an acceleration limit (PulleyParameters::maxAcceleration, scenario key
// pulley[].max_acceleration) reaches a speed step at that acceleration, in both directions, and
// then holds the command exactly: 500 rad/s^2 at h = 1 ms is 0.5 rad/s a step (exact in binary), so
// 0 -> 10 rad/s takes 20 steps and 10 -> 4 rad/s 12. The drive torque carries the motor pulley's
// angular momentum: where the acceleration stops (step 20 -> 21) or starts (50 -> 51) it drops by
// J1 a = 0.25 * 500 = 125 N m, the belt's torque being continuous across one step (it changes by
// about 2.5 N m a step there, measured on x86-64: 123.6 and 125.1 N m; bound 5 %).
TEST(PlantLoop, SpeedStepIsReachedAtTheMotorsAccelerationLimit) {
  PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  config.pulley[0].maxAcceleration = 500.0;
  static BeltDrivePlant<kMicrocontrollerElements, 2, kMicrocontrollerMesh> plant;  // static: ~100 KB of model state
  ASSERT_TRUE(plant.setUp(config).ok());
  ASSERT_TRUE(plant.start().converged);
  double torque[81] = {};
  for (int k = 1; k <= 80; ++k) {
    PlantCommand command;
    command.input[0] = k <= 50 ? 10.0 : 4.0;
    const PlantOutput out = plant.step(command);
    ASSERT_EQ(out.fault, PlantFault::kNone) << "step " << k;
    const double expected = k <= 20 ? 0.5 * k : k <= 50 ? 10.0 : k <= 62 ? 10.0 - 0.5 * (k - 50) : 4.0;
    ASSERT_EQ(out.speed[0], expected) << "step " << k;
    torque[k] = out.torque[0];
  }
  const double inertiaTorque = 0.25 * 500.0;
  EXPECT_NEAR(torque[20] - torque[21], inertiaTorque, 0.05 * inertiaTorque);  // acceleration ends
  EXPECT_NEAR(torque[50] - torque[51], inertiaTorque, 0.05 * inertiaTorque);  // deceleration starts
}

// The microcontroller configuration's fixed-cost stepping (generalized-alpha, spectral radius
// 0.6) through a speed step from rest to 8 rad/s with no load: the load pulley overshoots to about
// 11 rad/s, overtakes the motor, and the slip arc on it reverses. With the trapezoidal rule the
// same stepping faulted at 360 rad/s^2 at t = 0.103 s after 18 flagged steps in a row
// (docs/firmware.md, *Fixed-cost stepping*); the firmware loop enters its safe state after
// LoopOptions::maxConsecutiveNonConverged flagged steps in a row, so a shorter run is required,
// at the instantaneous jump (the images' default without an acceleration limit), at 360 rad/s^2
// and at the configuration's own 500 rad/s^2.
// The fixed-cost stepping with its refresh spread over 16 steps, from the static equilibrium at
// rest with no command: the drive stays at rest, so P1's drive torque stays at 0 and every step's
// residual near 0 (model/include/beltsim/stepping/fixed_cost_stepper.hpp, prepare: the first
// step's matrix is built after the step's start has set the contact anchors moving with the
// material). Measured (x86-64, 2026-12-07): |T1| <= 4.7e-5 N m, residual <= 3.7e-4 N, none flagged
// over the first 50 steps; the bounds are 1e-3 N m and 0.01 N. Seen failing with the matrix built
// before the anchors moved: a 4.4 kN residual at step 2, P1's torque -777 N m; with that matrix
// replaced by a whole rebuild after step 1 (an earlier mend), 0.10 N m and 0.69 N at step 1.
TEST(MicrocontrollerConfiguration, ASlicedRefreshStartsFromTheStaticEquilibriumWithoutAJolt) {
  static BeltDrivePlant<kMicrocontrollerElements, 2, kMicrocontrollerMesh> plant;
  PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
  ASSERT_EQ(config.integrator.stepping, Stepping::kFixedCost);
  config.integrator.refreshSteps = kMicrocontrollerElements;
  ASSERT_TRUE(plant.setUp(config).ok());
  ASSERT_TRUE(plant.start().converged);
  for (int k = 1; k <= 50; ++k) {
    const PlantOutput out = plant.step(PlantCommand{});
    ASSERT_EQ(out.fault, PlantFault::kNone) << "step " << k;
    EXPECT_TRUE(out.converged) << "step " << k;
    EXPECT_LT(out.residualNorm, 0.01) << "step " << k;
    EXPECT_LT(std::fabs(out.torque[0]), 1e-3) << "step " << k;
  }
}

TEST(MicrocontrollerConfiguration, ASpeedStepFromRestNeitherFaultsNorReachesTheSafeState) {
  static BeltDrivePlant<kMicrocontrollerElements, 2, kMicrocontrollerMesh> plant;  // static: ~100 KB of model state
  const long safeStateRun = static_cast<long>(LoopOptions{}.maxConsecutiveNonConverged);
  for (const double acceleration : {0.0, 360.0, 500.0}) {
    PlantConfig config = microcontrollerPlantConfig(MotorMode::kSpeed);
    ASSERT_EQ(config.integrator.stepping, Stepping::kFixedCost);
    config.pulley[0].maxAcceleration = acceleration;
    ASSERT_TRUE(plant.setUp(config).ok());
    ASSERT_TRUE(plant.start().converged);
    long run = 0, longestRun = 0;
    double peak = 0.0;
    for (int k = 1; k <= 500; ++k) {
      PlantCommand command;
      command.input[0] = 8.0;
      const PlantOutput out = plant.step(command);
      ASSERT_EQ(out.fault, PlantFault::kNone) << acceleration << " rad/s^2, step " << k;
      run = out.converged ? 0 : run + 1;
      longestRun = std::max(longestRun, run);
      peak = std::max(peak, out.speed[1]);
    }
    EXPECT_LT(longestRun, safeStateRun) << acceleration << " rad/s^2";
    EXPECT_GT(peak, 9.0) << acceleration << " rad/s^2: the load pulley overshoots (the drive's torsional mode)";
  }
}

// A configuration's fixed-cost stepping against the reference stepping (the paper's scheme:
// post-Newton loop, the trapezoidal rule) at the same mesh and step, over the paper's scenario
// (tests/support/paper_scenario.hpp). Bounds: the tail means of omega_P2, drive torque, F1 and F2
// within 0.3 percentage points of the reference, the creep (omega_P1 - omega_P2) r within 2 % of it;
// the four within 1 % of `converged` (the converged run with the configuration's contact values);
// at most 0.5 % of the steps flagged (the health flag's bound under random commands,
// docs/firmware.md).
template <int NE, PlantMesh Mesh>
void expectFixedCostSteppingFollowsTheReference(const PlantConfig& config, const double (&converged)[4]) {
  using namespace beltsim::test;
  static BeltDrivePlant<NE, 2, Mesh> plant;  // static: ~100 KB of model state
  ASSERT_EQ(config.integrator.stepping, Stepping::kFixedCost);
  auto run = [&](const PlantConfig& c) {
    EXPECT_TRUE(plant.setUp(c).ok());
    EXPECT_TRUE(plant.start().converged);
    return runPaperScenario(plant, c.stepSize);
  };
  const PaperRun fixed = run(config);
  PlantConfig referenceConfig = config;
  referenceConfig.integrator.stepping = Stepping::kReference;
  referenceConfig.integrator.newmark = true;
  const PaperRun reference = run(referenceConfig);
  ASSERT_EQ(fixed.faultStep, 0);
  ASSERT_EQ(reference.faultStep, 0);
  const double r = config.pulley[0].radius;
  std::printf("fixed cost / reference: omega_P2 %.4f / %.4f, torque %.3f / %.3f, F1 %.2f / %.2f, F2 %.2f / %.2f, "
              "creep %.5f / %.5f m/s, flagged %d / %d\n", fixed.omegaP2, reference.omegaP2, fixed.driveTorque,
              reference.driveTorque, fixed.tightForce, reference.tightForce, fixed.slackForce, reference.slackForce,
              (fixed.omegaP1 - fixed.omegaP2) * r, (reference.omegaP1 - reference.omegaP2) * r, fixed.flagged,
              reference.flagged);
  const double paper[4] = {kPaperOmegaP2, kPaperDriveTorque, kPaperTightForce, kPaperSlackForce};
  const double a[4] = {fixed.omegaP2, fixed.driveTorque, fixed.tightForce, fixed.slackForce};
  const double b[4] = {reference.omegaP2, reference.driveTorque, reference.tightForce, reference.slackForce};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(a[i] / paper[i] - b[i] / paper[i], 0.0, 3e-3) << "tail mean " << i;
    EXPECT_NEAR(a[i] / converged[i], 1.0, 1e-2) << "tail mean " << i;
  }
  const double creepFixed = fixed.omegaP1 - fixed.omegaP2, creepReference = reference.omegaP1 - reference.omegaP2;
  EXPECT_NEAR(creepFixed / creepReference, 1.0, 0.02);
  EXPECT_LE(fixed.flagged, fixed.steps / 200);  // at most 0.5 % of the steps flagged
}

// The microcontroller configuration (1 ms, a tenth of the paper's contact values). Converged:
// the material mesh at 480 elements, 1e-4 s, reference stepping, with those contact values
// (11.3002 rad/s, 660.47 N, 182.71 N, docs/host_simulator.md, *The eulerian mesh*; the belt sinks
// deeper and its path is shorter); the drive torque is Table 4's (it is the load's and the
// damper's). Measured on the eulerian mesh (x86-64, 2026-12-06): fixed cost and reference equal to
// 1e-4 rad/s and 0.01 N; against the converged run omega_P2 +0.01 %, F1 -0.18 %, F2 +0.51 %; 0 of
// 2450 steps flagged. (Against Table 4 F2 is -1.6 %: the contact values' own shift; the material
// mesh's 24 elements met Table 4 within 1 % by a cancellation of that shift with the Lobatto
// rule's over-tension, docs/validation_and_convergence.md.)
TEST(MicrocontrollerConfiguration, ItsFixedCostSteppingFollowsTheReferenceOverThePaperScenario) {
  const double converged[4] = {11.3002, test::kPaperDriveTorque, 660.47, 182.71};
  expectFixedCostSteppingFollowsTheReference<kMicrocontrollerElements, kMicrocontrollerMesh>(
      microcontrollerPlantConfig(MotorMode::kSpeed), converged);
}

// The PC configuration (1e-4 s, the paper's contact values, the trapezoidal rule): converged is
// Table 4 itself (the paper's own converged run, tests/support/paper_scenario.hpp).
TEST(PcConfiguration, ItsFixedCostSteppingFollowsTheReferenceOverThePaperScenario) {
  const double converged[4] = {test::kPaperOmegaP2, test::kPaperDriveTorque, test::kPaperTightForce,
                               test::kPaperSlackForce};
  expectFixedCostSteppingFollowsTheReference<kPcElements, kPcMesh>(pcPlantConfig(MotorMode::kSpeed), converged);
}

TEST(PlantLoop, FailedSelfCheckStartsInTheSafeState) {
  auto loop = std::make_unique<Loop>();
  ASSERT_TRUE(loop->setUp(microcontrollerPlantConfig(MotorMode::kSpeed), LoopOptions{}).ok());
  loop->start(false);
  const OutputFrame& o = loop->tick(nullptr, 1);
  EXPECT_EQ(o.safeState, 1);
  EXPECT_EQ(o.fault, FaultCode::kNotStarted);
}

// The microcontroller configuration's tolerances (firmware/plant_config.hpp): post-Newton 5 N
// instead of the paper's 1e-3 N, Newton 1e-3 relative / 1e-3 N instead of 1e-8 / 1e-7 N. Over
// the firmware's scripted stimulus (speed ramp to 12 rad/s, 25 N m load step at 0.45 s) to
// t = 1 s they must flag far fewer steps as not converged, need far fewer Newton iterations and
// post-Newton passes, and leave the mean state of the last 0.15 s where the tight tolerances
// put it (measured on x86-64: above the test). The state limit 1e-3 is a third of the
// smallest of the configuration's own deviations from the paper (0.3 to 3.3 %, docs/firmware.md,
// *Fixed-cost stepping*).
struct ScriptedRun {
  double omegaP2 = 0, motorTorque = 0, tightForce = 0, slackForce = 0;  // means of the last 0.15 s
  int flaggedSteps = 0;
  int newtonIterations = 0;
  int pnsPasses = 0;
};

// To t = 1 s, the last 0.15 s averaged, at the configuration's step.
template <int NE = kMicrocontrollerElements, PlantMesh Mesh = kMicrocontrollerMesh>
ScriptedRun runScriptedStimulus(const PlantConfig& config) {
  static BeltDrivePlant<NE, 2, Mesh> plant;  // static: ~100 KB of model state
  ScriptedRun m;
  EXPECT_TRUE(plant.setUp(config).ok());
  EXPECT_TRUE(plant.start().converged);
  const int kSteps = static_cast<int>(std::lround(1.0 / config.stepSize)), kTail = kSteps * 3 / 20;
  for (int k = 1; k <= kSteps; ++k) {
    const double t = k * config.stepSize;
    PlantCommand command;
    command.input[0] = linearRamp(t, 0.05, 0.35, 0.0, 12.0);
    command.input[1] = t >= 0.45 ? 25.0 : 0.0;
    const PlantOutput out = plant.step(command);
    EXPECT_EQ(out.fault, PlantFault::kNone);
    if (!out.converged) ++m.flaggedSteps;
    m.newtonIterations += out.newtonIterations;
    m.pnsPasses += out.pnsIterations;
    if (k > kSteps - kTail) {
      m.omegaP2 += out.speed[1] / kTail;
      m.motorTorque += out.torque[0] / kTail;
      m.tightForce += out.spanForce[0] / kTail;
      m.slackForce += out.spanForce[1] / kTail;
    }
  }
  return m;
}

// What a tolerance test prints of its two runs (reference: the tight tolerances).
void printCounts(const ScriptedRun& reference, const ScriptedRun& fast) {
  std::printf("flagged steps %d -> %d, Newton iterations %d -> %d, post-Newton passes %d -> %d\n",
              reference.flaggedSteps, fast.flaggedSteps, reference.newtonIterations, fast.newtonIterations,
              reference.pnsPasses, fast.pnsPasses);
}

// The tail means of omega_P2, the motor torque and both span forces agree within `limit` relative.
void expectTailMeansWithin(const ScriptedRun& fast, const ScriptedRun& reference, double limit) {
  const auto relative = [](double a, double b) { return std::fabs(a / b - 1.0); };
  std::printf("relative differences: omega_P2 %.1e, torque %.1e, F1 %.1e, F2 %.1e\n",
              relative(fast.omegaP2, reference.omegaP2), relative(fast.motorTorque, reference.motorTorque),
              relative(fast.tightForce, reference.tightForce), relative(fast.slackForce, reference.slackForce));
  EXPECT_LT(relative(fast.omegaP2, reference.omegaP2), limit);
  EXPECT_LT(relative(fast.motorTorque, reference.motorTorque), limit);
  EXPECT_LT(relative(fast.tightForce, reference.tightForce), limit);
  EXPECT_LT(relative(fast.slackForce, reference.slackForce), limit);
}

// Measured on the eulerian mesh (2026-12-06): flagged steps 0 -> 0, Newton iterations 2295 -> 995,
// post-Newton passes 1195 -> 1003, states within 5.3e-6 relative. (On the material mesh, 24
// elements: flagged 31 -> 3, iterations 6872 -> 2049, passes 1956 -> 1304; the pass bound was 80 %
// of the tight run's and is 90 % since the configuration moved to the eulerian mesh, whose tight
// run flags no step.)
// The tolerances of the reference stepping (the paper's scheme), whichever stepping the file selects.
TEST(MicrocontrollerConfiguration, ItsTolerancesFlagFewerStepsAndKeepTheState) {
  PlantConfig chosen = microcontrollerPlantConfig(MotorMode::kSpeed);
  chosen.integrator.stepping = Stepping::kReference;
  PlantConfig tight = chosen;
  tight.integrator.pnsTolerance = 1e-3;
  tight.integrator.relativeTolerance = 1e-8;
  tight.integrator.absoluteTolerance = 1e-7;
  const ScriptedRun reference = runScriptedStimulus(tight);
  const ScriptedRun fast = runScriptedStimulus(chosen);
  printCounts(reference, fast);
  EXPECT_LE(5 * fast.flaggedSteps, reference.flaggedSteps);
  EXPECT_LE(2 * fast.newtonIterations, reference.newtonIterations);
  EXPECT_LE(10 * fast.pnsPasses, 9 * reference.pnsPasses);
  expectTailMeansWithin(fast, reference, 1e-3);
}

TEST(TimingHistogram, QuantilesAreWithinOneBinAboveTheTrueValue) {
  TimingHistogram h;
  for (std::uint64_t v = 1; v <= 1000; ++v) h.add(v * 1000);  // 1 us .. 1 ms
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.min(), 1000u);
  EXPECT_EQ(h.max(), 1000000u);
  EXPECT_EQ(h.mean(), 500500u);
  const std::uint64_t median = h.quantile(0.5), p99 = h.quantile(0.99);
  EXPECT_GE(median, 500000u);
  EXPECT_LE(median, 500000u * 33 / 32 + 1);  // one bin: 1/32 of the value
  EXPECT_GE(p99, 990000u);
  EXPECT_LE(p99, 1000000u);
  // Bin edges: each value lies below its bin's upper edge and at or above the previous one's.
  for (std::uint64_t v : {0ull, 7ull, 8ull, 31ull, 32ull, 33ull, 63ull, 64ull, 65ull, 1000ull, 123456789ull}) {
    const int b = TimingHistogram::binOf(v);
    EXPECT_LT(v, TimingHistogram::upperEdge(b));
    if (b > 0) {
      EXPECT_GE(v, TimingHistogram::upperEdge(b - 1));
    }
  }
}

}  // namespace
}  // namespace beltsim::fw

