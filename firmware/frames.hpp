// Plant I/O frames, version 1: the bytes that cross the plant's I/O (UART, UDP, trace files).
// Little-endian, fixed size, CRC-32 (IEEE 802.3, reflected, as zlib) over every byte before the
// CRC. Encoding and decoding are pure functions on caller buffers; decode never reads past
// `length` and reports why a frame was refused.
//
// Command frame (controller -> plant), 32 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 1   3 u8 type = 1
//    4 u32 sequence (controller's counter)
//    8 u8 mode (1: motor speed command, 2: motor torque command)   9 u8 flags (0)   10 u16 reserved (0)
//   12 f64 motor command: rad/s or N m, counter-clockwise positive
//   20 f64 load torque on P2: N m, braking positive
//   28 u32 CRC-32 of bytes 0..27
// Output frame (plant -> controller), 136 bytes:
//    0 u8[2] magic "BD"   2 u8 version = 1   3 u8 type = 2
//    4 u32 sequence (plant's frame counter)   8 u32 step index   12 u32 sequence of the command in use
//   16 f64 simulated time, s
//   ground truth of the model:
//   24 f64[2] pulley angles P1, P2, rad      40 f64[2] pulley speeds, rad/s
//   56 f64 motor torque, N m                64 f64 load torque, N m
//   72 f64[2] span forces (span P1->P2, span P2->P1), N
//   emulated sensors (what a controller on real hardware would see):
//   88 i32[2] incremental encoder counts of P1, P2 (floor(angle / 2 pi * counts per revolution))
//   96 f64[2] load cells on the two spans: span force rounded to the load-cell resolution, N
//   health:
//  112 u8 converged  113 u8 Newton iterations  114 u8 PNS iterations  115 u8 model status
//  116 u8 fault code (FaultCode)  117 u8 safe state (0/1)  118 u8 motor mode  119 u8 reserved
//  120 u32 overrun count  124 u32 rejected-frame count  128 u32 late-frame count
//  132 u32 CRC-32 of bytes 0..131
// The full specification (units, ranges, sequence rules, transports) is firmware/PROTOCOL.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace beltsim::fw {

constexpr std::uint8_t kFrameMagic0 = 'B', kFrameMagic1 = 'D';
constexpr std::uint8_t kFrameVersion = 1;
constexpr std::uint8_t kFrameTypeCommand = 1, kFrameTypeOutput = 2;
constexpr std::size_t kCommandFrameSize = 32;
constexpr std::size_t kOutputFrameSize = 136;

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
  std::uint8_t mode = 1;
  std::uint8_t flags = 0;
  double motor = 0.0;
  double loadTorque = 0.0;
};

struct OutputFrame {
  std::uint32_t sequence = 0;
  std::uint32_t step = 0;
  std::uint32_t commandSequence = 0;
  double time = 0.0;
  double angle[2] = {};
  double speed[2] = {};
  double motorTorque = 0.0;
  double loadTorque = 0.0;
  double spanForce[2] = {};
  std::int32_t encoderCount[2] = {};
  double loadCell[2] = {};
  std::uint8_t converged = 0;
  std::uint8_t newtonIterations = 0;
  std::uint8_t pnsIterations = 0;
  std::uint8_t modelStatus = 0;
  FaultCode fault = FaultCode::kNone;
  std::uint8_t safeState = 0;
  std::uint8_t motorMode = 0;
  std::uint32_t overruns = 0;
  std::uint32_t rejectedFrames = 0;
  std::uint32_t lateFrames = 0;
};

enum class DecodeError : std::uint8_t { kNone, kTruncated, kOversized, kMagic, kVersion, kType, kCrc, kReserved };

// ---- CRC-32 and little-endian helpers --------------------------------------------------------------
inline std::uint32_t crc32(const std::uint8_t* data, std::size_t length) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < length; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
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

inline DecodeError checkFrame(const std::uint8_t* p, std::size_t length, std::size_t size, std::uint8_t type) {
  if (length < size) return DecodeError::kTruncated;
  if (length > size) return DecodeError::kOversized;
  if (p[0] != kFrameMagic0 || p[1] != kFrameMagic1) return DecodeError::kMagic;
  if (p[2] != kFrameVersion) return DecodeError::kVersion;
  if (p[3] != type) return DecodeError::kType;
  if (le::getU32(p + size - 4) != crc32(p, size - 4)) return DecodeError::kCrc;
  return DecodeError::kNone;
}

// ---- command frames ----------------------------------------------------------------------------------
inline void encodeCommand(const CommandFrame& f, std::uint8_t (&out)[kCommandFrameSize]) {
  putHeader(out, kFrameTypeCommand);
  le::putU32(out + 4, f.sequence);
  out[8] = f.mode;
  out[9] = f.flags;
  le::putU16(out + 10, 0);
  le::putF64(out + 12, f.motor);
  le::putF64(out + 20, f.loadTorque);
  le::putU32(out + 28, crc32(out, 28));
}

inline DecodeError decodeCommand(const std::uint8_t* data, std::size_t length, CommandFrame& f) {
  const DecodeError e = checkFrame(data, length, kCommandFrameSize, kFrameTypeCommand);
  if (e != DecodeError::kNone) return e;
  if (le::getU16(data + 10) != 0) return DecodeError::kReserved;
  f.sequence = le::getU32(data + 4);
  f.mode = data[8];
  f.flags = data[9];
  f.motor = le::getF64(data + 12);
  f.loadTorque = le::getF64(data + 20);
  return DecodeError::kNone;
}

// ---- output frames -------------------------------------------------------------------------------------
inline void encodeOutput(const OutputFrame& f, std::uint8_t (&out)[kOutputFrameSize]) {
  putHeader(out, kFrameTypeOutput);
  le::putU32(out + 4, f.sequence);
  le::putU32(out + 8, f.step);
  le::putU32(out + 12, f.commandSequence);
  le::putF64(out + 16, f.time);
  for (int i = 0; i < 2; ++i) {
    le::putF64(out + 24 + 8 * i, f.angle[i]);
    le::putF64(out + 40 + 8 * i, f.speed[i]);
    le::putF64(out + 72 + 8 * i, f.spanForce[i]);
    le::putU32(out + 88 + 4 * i, static_cast<std::uint32_t>(f.encoderCount[i]));
    le::putF64(out + 96 + 8 * i, f.loadCell[i]);
  }
  le::putF64(out + 56, f.motorTorque);
  le::putF64(out + 64, f.loadTorque);
  out[112] = f.converged;
  out[113] = f.newtonIterations;
  out[114] = f.pnsIterations;
  out[115] = f.modelStatus;
  out[116] = static_cast<std::uint8_t>(f.fault);
  out[117] = f.safeState;
  out[118] = f.motorMode;
  out[119] = 0;
  le::putU32(out + 120, f.overruns);
  le::putU32(out + 124, f.rejectedFrames);
  le::putU32(out + 128, f.lateFrames);
  le::putU32(out + 132, crc32(out, 132));
}

inline DecodeError decodeOutput(const std::uint8_t* data, std::size_t length, OutputFrame& f) {
  const DecodeError e = checkFrame(data, length, kOutputFrameSize, kFrameTypeOutput);
  if (e != DecodeError::kNone) return e;
  if (data[119] != 0) return DecodeError::kReserved;
  f.sequence = le::getU32(data + 4);
  f.step = le::getU32(data + 8);
  f.commandSequence = le::getU32(data + 12);
  f.time = le::getF64(data + 16);
  for (int i = 0; i < 2; ++i) {
    f.angle[i] = le::getF64(data + 24 + 8 * i);
    f.speed[i] = le::getF64(data + 40 + 8 * i);
    f.spanForce[i] = le::getF64(data + 72 + 8 * i);
    f.encoderCount[i] = static_cast<std::int32_t>(le::getU32(data + 88 + 4 * i));
    f.loadCell[i] = le::getF64(data + 96 + 8 * i);
  }
  f.motorTorque = le::getF64(data + 56);
  f.loadTorque = le::getF64(data + 64);
  f.converged = data[112];
  f.newtonIterations = data[113];
  f.pnsIterations = data[114];
  f.modelStatus = data[115];
  f.fault = static_cast<FaultCode>(data[116]);
  f.safeState = data[117];
  f.motorMode = data[118];
  f.overruns = le::getU32(data + 120);
  f.rejectedFrames = le::getU32(data + 124);
  f.lateFrames = le::getU32(data + 128);
  return DecodeError::kNone;
}

// Bytes of an output frame that depend on the wall clock, not on the model: the overrun and
// late-frame counters and the CRC that covers them.
inline bool isTimingByte(std::size_t i) { return (i >= 120 && i < 124) || i >= 128; }

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
