// Plant I/O frames, version 4: the bytes that cross the plant's I/O (UART, UDP, trace files).
// Little-endian, fixed size, CRC-32 (IEEE 802.3, reflected, as zlib) over every byte before the
// CRC. Encoding and decoding are pure functions on caller buffers; decode never reads past
// `length` and reports why a frame was refused. Both frames carry kFramePulleys (8) pulley slots
// whatever the plant's pulley count n; slots n.. are zero.
//
// Command frame (controller -> plant), 88 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 4 (3 is taken: the same layout)   3 u8 type = 1
//    4 u32 sequence (controller's counter)
//    8 u8 pulley count n   9 u8 flags (0)   10 u16 reserved (0)
//   12 u8[8] input kind per pulley (PulleyInput: 0 none, 1 speed, 2 torque, 3 load torque)
//   20 f64[8] input per pulley: rad/s, N m (counter-clockwise positive) or N m (braking positive)
//   84 u32 CRC-32 of bytes 0..83
// Output frame (plant -> controller), 508 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 4   3 u8 type = 2
//    4 u32 sequence (plant's frame counter)   8 u32 step index   12 u32 sequence of the command in use
//   16 f64 simulated time, s
//   ground truth of the model, one slot per pulley (spans: span k from pulley k to k+1):
//   24 f64[8] angles, rad   88 f64[8] speeds, rad/s   152 f64[8] torques on the pulleys, N m
//  216 f64[8] span forces, N   280 f64[8] tensioner arm angles, rad
//   emulated sensors (what a controller on real hardware would see):
//  344 i32[8] incremental encoder counts (floor(angle * (counts per revolution / 2 pi)))
//  376 f64[8] load cells on the spans: span force rounded to the load-cell resolution, N
//   configuration and health:
//  440 u8[8] input kind per pulley (the plant's)   448 u8 pulley count
//  449 u8 converged  450 u8 Newton iterations  451 u8 PNS iterations  452 u8 model status
//  453 u8 fault code (FaultCode)  454 u8 safe state (0/1)
//  455 u8 reserved (0): the device under test is never told of injected faults (the bench is)
//  456 u32 overrun count  460 u32 rejected-frame count  464 u32 late-frame count
//  why frames were rejected and ticks overran (the counts above split by cause):
//  468 u32 corrupt (refused by the decoder)  472 u32 invalid (value, kind, count or flags)
//  476 u32 stale (duplicate or out-of-order sequence)  480 u32 superseded (a newer valid one in the
//  same tick)  484 u32 overruns caused by the step's own compute (the rest: late wake-ups)
//   what the step accepted (the step is flagged, converged = 0, when either is above the
//   plant's threshold):
//  488 f64 residual norm of the step's last Newton residual, N   496 f64 post-Newton error e_PNS, N
//  504 u32 CRC-32 of bytes 0..503
// The test bench's frames (beltsim hil --bench, never the controller's):
// Fault command frame (bench -> plant), 24 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 4 (3 is taken: the same layout)   3 u8 type = 3
//    4 u32 sequence (the bench's own counter)   8 u8 table k (the scenario's [[fault]] k, from 0)
//    9 u8 action (0 clear, 1 start)   10 u16 reserved (0)   12 f64 value (the table's unit)
//   20 u32 CRC-32 of bytes 0..19
// Fault acknowledgement frame (plant -> bench), 44 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 4   3 u8 type = 4
//    4 u32 sequence of the fault command   8 u8 table   9 u8 result (FaultCommandResult)
//   10 u8 action   11 u8 injected faults acting after the previous step (bit k: table k)
//   12 u32 step from which the change acts (0: refused)   16 f64 value
//   24 u32 fault commands accepted   28 u32 refused   32 u32 foreign datagrams (neither the
//      controller's nor the bench's)   36 u32 steps taken so far   40 u32 CRC-32 of bytes 0..39
// The full specification (units, ranges, sequence rules, transports) is firmware/PROTOCOL.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace beltsim::fw {

constexpr std::uint8_t kFrameMagic0 = 'B', kFrameMagic1 = 'D';
constexpr std::uint8_t kFrameVersion = 4;
// Frames to the plant (command, fault command) have the same layout in versions 3 and 4, so the
// plant also takes version 3 (a recording made by a version-3 plant replays); frames from the
// plant are version 4 alone (version 3 carried the acting injected faults in output byte 455).
constexpr std::uint8_t kOldestInputVersion = 3;
constexpr int kFramePulleys = 8;
constexpr std::uint8_t kFrameTypeCommand = 1, kFrameTypeOutput = 2;
constexpr std::uint8_t kFrameTypeFaultCommand = 3, kFrameTypeFaultAck = 4;
constexpr std::size_t kCommandFrameSize = 88;
constexpr std::size_t kOutputFrameSize = 508;
constexpr std::size_t kFaultCommandFrameSize = 24;
constexpr std::size_t kFaultAckFrameSize = 44;

enum class FaultCode : std::uint8_t {
  kNone = 0,
  kNotStarted = 1,        // start-up self-check or static equilibrium failed
  kModelFault = 2,        // the integrator faulted (non-finite or degenerate state)
  kImplausibleState = 3,  // pulley speed or span force beyond the plausibility limits
  kNonConvergence = 4,    // too many non-converged steps in a row
  kOverrun = 5,           // a step overran its tick and the policy says safe state
  kControllerSilent = 6,  // no valid command for longer than the hold limit
};

struct CommandFrame {
  std::uint32_t sequence = 0;
  std::uint8_t pulleyCount = 0;
  std::uint8_t flags = 0;
  std::uint8_t inputKind[kFramePulleys] = {};  // PulleyInput values
  double input[kFramePulleys] = {};
};

struct OutputFrame {
  std::uint32_t sequence = 0;
  std::uint32_t step = 0;
  std::uint32_t commandSequence = 0;
  double time = 0.0;
  double angle[kFramePulleys] = {};
  double speed[kFramePulleys] = {};
  double torque[kFramePulleys] = {};
  double spanForce[kFramePulleys] = {};
  double armAngle[kFramePulleys] = {};
  std::int32_t encoderCount[kFramePulleys] = {};
  double loadCell[kFramePulleys] = {};
  std::uint8_t inputKind[kFramePulleys] = {};
  std::uint8_t pulleyCount = 0;
  std::uint8_t converged = 0;
  std::uint8_t newtonIterations = 0;
  std::uint8_t pnsIterations = 0;
  std::uint8_t modelStatus = 0;
  FaultCode fault = FaultCode::kNone;
  std::uint8_t safeState = 0;
  std::uint32_t overruns = 0;
  std::uint32_t rejectedFrames = 0;  // = corrupt + invalid + stale + superseded
  std::uint32_t lateFrames = 0;
  std::uint32_t corruptFrames = 0;
  std::uint32_t invalidFrames = 0;
  std::uint32_t staleFrames = 0;
  std::uint32_t supersededFrames = 0;
  std::uint32_t computeOverruns = 0;  // of `overruns`: the step's own compute ran past the tick
  double residualNorm = 0.0;  // N, the accepted step's last Newton residual (PlantOutput::residualNorm)
  double pnsError = 0.0;      // N, its post-Newton error e_PNS
};

// A test bench's live injected fault (docs/injected_faults.md, "Live faults").
enum class FaultAction : std::uint8_t { kClear = 0, kStart = 1 };
struct FaultCommandFrame {
  std::uint32_t sequence = 0;
  std::uint8_t table = 0;   // the scenario's [[fault]] k, from 0
  std::uint8_t action = 0;  // FaultAction
  double value = 0.0;       // what the table's value goes to (0 for stuck and reverse)
};

// Why a fault command was refused (0: it was not). Refused commands change nothing.
enum class FaultCommandResult : std::uint8_t {
  kAccepted = 0,
  kCorrupt = 1,     // the decoder refused it (length, magic, version, type, CRC, reserved)
  kStale = 2,       // its sequence is not above the last accepted one
  kNoTable = 3,     // the scenario has no [[fault]] table k
  kNotLive = 4,     // table k is not marked live = true
  kBadAction = 5,   // neither clear nor start
  kOutOfRange = 6,  // the value is not finite or outside the table's min..max
  kSafeState = 7,   // the plant is in its safe state: it takes no steps, nothing would act
};

struct FaultAckFrame {
  std::uint32_t sequence = 0;  // of the fault command answered (0 for one the decoder refused)
  std::uint8_t table = 0;
  FaultCommandResult result = FaultCommandResult::kAccepted;
  std::uint8_t action = 0;
  std::uint8_t injectedFaults = 0;  // bit k: table k acts, after the previous step
  std::uint32_t effectiveStep = 0;  // the output frames' step from which it acts; 0: refused
  double value = 0.0;
  std::uint32_t accepted = 0;  // fault commands accepted so far
  std::uint32_t refused = 0;   // refused so far
  std::uint32_t foreign = 0;   // datagrams from neither the controller nor the bench, dropped unread
  std::uint32_t steps = 0;     // model steps taken so far
};

enum class DecodeError : std::uint8_t { kNone, kTruncated, kOversized, kMagic, kVersion, kType, kCrc, kReserved };

// ---- CRC-32 and little-endian helpers --------------------------------------------------------------
// Byte-wise with a 256-entry table built at compile time (1 KiB of read-only data): a bit-wise
// loop over a whole output frame would take a noticeable part of a tick's budget.
namespace detail {
struct Crc32Table {
  std::uint32_t entry[256];
};
constexpr Crc32Table makeCrc32Table() {
  Crc32Table t{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t crc = b;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    t.entry[b] = crc;
  }
  return t;
}
inline constexpr Crc32Table kCrc32Table = makeCrc32Table();
}  // namespace detail

inline std::uint32_t crc32(const std::uint8_t* data, std::size_t length) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < length; ++i) crc = (crc >> 8) ^ detail::kCrc32Table.entry[(crc ^ data[i]) & 0xFFu];
  return ~crc;
}

namespace le {
inline void putU16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
inline void putU32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void putF64(std::uint8_t* p, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(bits >> (8 * i));
}
inline std::uint16_t getU16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
inline std::uint32_t getU32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline double getF64(const std::uint8_t* p) {
  std::uint64_t bits = 0;
  for (int i = 7; i >= 0; --i) bits = (bits << 8) | p[i];
  double v;
  std::memcpy(&v, &bits, 8);
  return v;
}
}  // namespace le

inline void putHeader(std::uint8_t* p, std::uint8_t type) {
  p[0] = kFrameMagic0;
  p[1] = kFrameMagic1;
  p[2] = kFrameVersion;
  p[3] = type;
}

// Whether a frame of this type is taken at this protocol version.
inline bool takesVersion(std::uint8_t type, std::uint8_t version) {
  const bool toPlant = type == kFrameTypeCommand || type == kFrameTypeFaultCommand;
  return version == kFrameVersion || (toPlant && version >= kOldestInputVersion && version < kFrameVersion);
}

// Header first, so that a frame of another protocol version is refused as such (kVersion), not
// for its length: a version-1 command (32 bytes) to a version-4 plant says "version".
inline DecodeError checkFrame(const std::uint8_t* p, std::size_t length, std::size_t size, std::uint8_t type) {
  if (length < 4) return DecodeError::kTruncated;
  if (p[0] != kFrameMagic0 || p[1] != kFrameMagic1) return DecodeError::kMagic;
  if (!takesVersion(type, p[2])) return DecodeError::kVersion;
  if (p[3] != type) return DecodeError::kType;
  if (length < size) return DecodeError::kTruncated;
  if (length > size) return DecodeError::kOversized;
  if (le::getU32(p + size - 4) != crc32(p, size - 4)) return DecodeError::kCrc;
  return DecodeError::kNone;
}

// ---- command frames ----------------------------------------------------------------------------------
inline void encodeCommand(const CommandFrame& f, std::uint8_t (&out)[kCommandFrameSize]) {
  putHeader(out, kFrameTypeCommand);
  le::putU32(out + 4, f.sequence);
  out[8] = f.pulleyCount;
  out[9] = f.flags;
  le::putU16(out + 10, 0);
  for (int i = 0; i < kFramePulleys; ++i) {
    out[12 + i] = f.inputKind[i];
    le::putF64(out + 20 + 8 * i, f.input[i]);
  }
  le::putU32(out + 84, crc32(out, 84));
}

inline DecodeError decodeCommand(const std::uint8_t* data, std::size_t length, CommandFrame& f) {
  const DecodeError e = checkFrame(data, length, kCommandFrameSize, kFrameTypeCommand);
  if (e != DecodeError::kNone) return e;
  if (le::getU16(data + 10) != 0) return DecodeError::kReserved;
  f.sequence = le::getU32(data + 4);
  f.pulleyCount = data[8];
  f.flags = data[9];
  for (int i = 0; i < kFramePulleys; ++i) {
    f.inputKind[i] = data[12 + i];
    f.input[i] = le::getF64(data + 20 + 8 * i);
  }
  return DecodeError::kNone;
}

// ---- output frames -------------------------------------------------------------------------------------
inline void encodeOutput(const OutputFrame& f, std::uint8_t (&out)[kOutputFrameSize]) {
  putHeader(out, kFrameTypeOutput);
  le::putU32(out + 4, f.sequence);
  le::putU32(out + 8, f.step);
  le::putU32(out + 12, f.commandSequence);
  le::putF64(out + 16, f.time);
  for (int i = 0; i < kFramePulleys; ++i) {
    le::putF64(out + 24 + 8 * i, f.angle[i]);
    le::putF64(out + 88 + 8 * i, f.speed[i]);
    le::putF64(out + 152 + 8 * i, f.torque[i]);
    le::putF64(out + 216 + 8 * i, f.spanForce[i]);
    le::putF64(out + 280 + 8 * i, f.armAngle[i]);
    le::putU32(out + 344 + 4 * i, static_cast<std::uint32_t>(f.encoderCount[i]));
    le::putF64(out + 376 + 8 * i, f.loadCell[i]);
    out[440 + i] = f.inputKind[i];
  }
  out[448] = f.pulleyCount;
  out[449] = f.converged;
  out[450] = f.newtonIterations;
  out[451] = f.pnsIterations;
  out[452] = f.modelStatus;
  out[453] = static_cast<std::uint8_t>(f.fault);
  out[454] = f.safeState;
  out[455] = 0;  // reserved
  le::putU32(out + 456, f.overruns);
  le::putU32(out + 460, f.rejectedFrames);
  le::putU32(out + 464, f.lateFrames);
  le::putU32(out + 468, f.corruptFrames);
  le::putU32(out + 472, f.invalidFrames);
  le::putU32(out + 476, f.staleFrames);
  le::putU32(out + 480, f.supersededFrames);
  le::putU32(out + 484, f.computeOverruns);
  le::putF64(out + 488, f.residualNorm);
  le::putF64(out + 496, f.pnsError);
  le::putU32(out + 504, crc32(out, 504));
}

inline DecodeError decodeOutput(const std::uint8_t* data, std::size_t length, OutputFrame& f) {
  const DecodeError e = checkFrame(data, length, kOutputFrameSize, kFrameTypeOutput);
  if (e != DecodeError::kNone) return e;
  if (data[455] != 0) return DecodeError::kReserved;
  f.sequence = le::getU32(data + 4);
  f.step = le::getU32(data + 8);
  f.commandSequence = le::getU32(data + 12);
  f.time = le::getF64(data + 16);
  for (int i = 0; i < kFramePulleys; ++i) {
    f.angle[i] = le::getF64(data + 24 + 8 * i);
    f.speed[i] = le::getF64(data + 88 + 8 * i);
    f.torque[i] = le::getF64(data + 152 + 8 * i);
    f.spanForce[i] = le::getF64(data + 216 + 8 * i);
    f.armAngle[i] = le::getF64(data + 280 + 8 * i);
    f.encoderCount[i] = static_cast<std::int32_t>(le::getU32(data + 344 + 4 * i));
    f.loadCell[i] = le::getF64(data + 376 + 8 * i);
    f.inputKind[i] = data[440 + i];
  }
  f.pulleyCount = data[448];
  f.converged = data[449];
  f.newtonIterations = data[450];
  f.pnsIterations = data[451];
  f.modelStatus = data[452];
  f.fault = static_cast<FaultCode>(data[453]);
  f.safeState = data[454];
  f.overruns = le::getU32(data + 456);
  f.rejectedFrames = le::getU32(data + 460);
  f.lateFrames = le::getU32(data + 464);
  f.corruptFrames = le::getU32(data + 468);
  f.invalidFrames = le::getU32(data + 472);
  f.staleFrames = le::getU32(data + 476);
  f.supersededFrames = le::getU32(data + 480);
  f.computeOverruns = le::getU32(data + 484);
  f.residualNorm = le::getF64(data + 488);
  f.pnsError = le::getF64(data + 496);
  return DecodeError::kNone;
}

// ---- the test bench's fault frames -----------------------------------------------------------
inline void encodeFaultCommand(const FaultCommandFrame& f, std::uint8_t (&out)[kFaultCommandFrameSize]) {
  putHeader(out, kFrameTypeFaultCommand);
  le::putU32(out + 4, f.sequence);
  out[8] = f.table;
  out[9] = f.action;
  le::putU16(out + 10, 0);
  le::putF64(out + 12, f.value);
  le::putU32(out + 20, crc32(out, 20));
}

inline DecodeError decodeFaultCommand(const std::uint8_t* data, std::size_t length, FaultCommandFrame& f) {
  const DecodeError e = checkFrame(data, length, kFaultCommandFrameSize, kFrameTypeFaultCommand);
  if (e != DecodeError::kNone) return e;
  if (le::getU16(data + 10) != 0) return DecodeError::kReserved;
  f.sequence = le::getU32(data + 4);
  f.table = data[8];
  f.action = data[9];
  f.value = le::getF64(data + 12);
  return DecodeError::kNone;
}

inline void encodeFaultAck(const FaultAckFrame& f, std::uint8_t (&out)[kFaultAckFrameSize]) {
  putHeader(out, kFrameTypeFaultAck);
  le::putU32(out + 4, f.sequence);
  out[8] = f.table;
  out[9] = static_cast<std::uint8_t>(f.result);
  out[10] = f.action;
  out[11] = f.injectedFaults;
  le::putU32(out + 12, f.effectiveStep);
  le::putF64(out + 16, f.value);
  le::putU32(out + 24, f.accepted);
  le::putU32(out + 28, f.refused);
  le::putU32(out + 32, f.foreign);
  le::putU32(out + 36, f.steps);
  le::putU32(out + 40, crc32(out, 40));
}

inline DecodeError decodeFaultAck(const std::uint8_t* data, std::size_t length, FaultAckFrame& f) {
  const DecodeError e = checkFrame(data, length, kFaultAckFrameSize, kFrameTypeFaultAck);
  if (e != DecodeError::kNone) return e;
  f.sequence = le::getU32(data + 4);
  f.table = data[8];
  f.result = static_cast<FaultCommandResult>(data[9]);
  f.action = data[10];
  f.injectedFaults = data[11];
  f.effectiveStep = le::getU32(data + 12);
  f.value = le::getF64(data + 16);
  f.accepted = le::getU32(data + 24);
  f.refused = le::getU32(data + 28);
  f.foreign = le::getU32(data + 32);
  f.steps = le::getU32(data + 36);
  return DecodeError::kNone;
}

// Bytes of an output frame that depend on the wall clock, not on the model: the overrun, late-
// and superseded-frame counters and the CRC that covers them.
inline bool isTimingByte(std::size_t i) {
  return (i >= 456 && i < 460) || (i >= 464 && i < 468) || (i >= 480 && i < 488) || i >= 504;
}

// ---- byte streams (UART, TCP) ---------------------------------------------------------------------
// Finds frames of one type in a byte stream: frames follow each other without gaps, but bytes
// can be lost or corrupted, so the decoder resynchronises by sliding one byte at a time until
// magic, version, type and CRC all match. Fixed buffer; every loop is bounded by its size.
template <std::size_t Size, std::uint8_t Type>
class FrameStream {
 public:
  // Appends received bytes (those beyond the buffer's room are dropped and counted as garbage).
  void push(const std::uint8_t* data, std::size_t length) {
    for (std::size_t i = 0; i < length; ++i) {
      if (fill_ < sizeof buffer_) buffer_[fill_++] = data[i];
      else ++garbage_;
    }
  }
  // Copies the next complete frame to `frame` and returns true, or false if none is complete.
  bool pop(std::uint8_t (&frame)[Size]) {
    while (fill_ >= Size) {
      if (checkFrame(buffer_, Size, Size, Type) == DecodeError::kNone) {
        std::memcpy(frame, buffer_, Size);
        consume(Size);
        return true;
      }
      consume(1);
      ++garbage_;
    }
    return false;
  }
  std::uint32_t garbageBytes() const { return garbage_; }

 private:
  void consume(std::size_t n) {
    std::memmove(buffer_, buffer_ + n, fill_ - n);
    fill_ -= n;
  }
  std::uint8_t buffer_[4 * Size] = {};
  std::size_t fill_ = 0;
  std::uint32_t garbage_ = 0;
};
using CommandStream = FrameStream<kCommandFrameSize, kFrameTypeCommand>;
using OutputStream = FrameStream<kOutputFrameSize, kFrameTypeOutput>;

// ---- trace hash ------------------------------------------------------------------------------------------
// FNV-1a (64 bit) over the output frames' deterministic bytes (all but isTimingByte).
struct TraceHash {
  std::uint64_t value = 0xCBF29CE484222325ull;
  std::uint32_t frames = 0;
  void add(const std::uint8_t (&frame)[kOutputFrameSize]) {
    for (std::size_t i = 0; i < kOutputFrameSize; ++i) {
      value ^= isTimingByte(i) ? 0u : frame[i];
      value *= 0x100000001B3ull;
    }
    ++frames;
  }
};

}  // namespace beltsim::fw
