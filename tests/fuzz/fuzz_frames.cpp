// libFuzzer target: the plant I/O frames (firmware/frames.hpp).
// - decodeCommand / decodeOutput on the whole input and on every prefix (each copied to a heap
//   block of exactly that length, so ASan reports any read past `length`); a wrong length must
//   be refused (a frame with a valid header: as truncated or oversized);
// - round trip: every frame that decodes re-encodes to the same bytes and decodes again to the
//   same values;
// - validateCommand (firmware/plant_loop.hpp) on every decoded command frame, with the
//   microcontroller configuration in speed and in torque mode;
// - CommandStream / OutputStream: the input (all but its last byte) pushed in chunks, frames
//   popped in between; every popped frame must pass checkFrame and round-trip. The last input
//   byte controls the chunking: bits 0-5 chunk length - 1, bit 6 pop only after every other
//   chunk, bit 7 pop at most one frame per chunk (bits 6 and 7 let the buffer overflow).
// A violated property prints why and aborts (libFuzzer saves the input as a crash artifact).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "frames.hpp"
#include "plant_config.hpp"
#include "plant_loop.hpp"

namespace {

using namespace beltsim::fw;

[[noreturn]] void failed(const char* what, const std::uint8_t* p, std::size_t length) {
  std::fprintf(stderr, "fuzz_frames: property violated: %s\nframe (%zu bytes):", what, length);
  for (std::size_t i = 0; i < length; ++i) std::fprintf(stderr, "%s%02x", i % 16 == 0 ? "\n  " : " ", p[i]);
  std::fprintf(stderr, "\n");
  std::abort();
}

void check(bool ok, const char* what, const std::uint8_t* p, std::size_t length) {
  if (!ok) failed(what, p, length);
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameCommand(const CommandFrame& a, const CommandFrame& b) {
  bool same = a.sequence == b.sequence && a.pulleyCount == b.pulleyCount && a.flags == b.flags;
  for (int i = 0; i < kFramePulleys; ++i) same = same && a.inputKind[i] == b.inputKind[i] && sameBits(a.input[i], b.input[i]);
  return same;
}

bool sameOutput(const OutputFrame& a, const OutputFrame& b) {
  bool same = a.sequence == b.sequence && a.step == b.step && a.commandSequence == b.commandSequence &&
              sameBits(a.time, b.time) && a.pulleyCount == b.pulleyCount && a.converged == b.converged &&
              a.newtonIterations == b.newtonIterations && a.pnsIterations == b.pnsIterations &&
              a.modelStatus == b.modelStatus && a.fault == b.fault && a.safeState == b.safeState &&
              a.overruns == b.overruns && a.rejectedFrames == b.rejectedFrames && a.lateFrames == b.lateFrames &&
              a.corruptFrames == b.corruptFrames && a.invalidFrames == b.invalidFrames &&
              a.staleFrames == b.staleFrames && a.supersededFrames == b.supersededFrames &&
              a.computeOverruns == b.computeOverruns && sameBits(a.residualNorm, b.residualNorm) &&
              sameBits(a.pnsError, b.pnsError);
  for (int i = 0; i < kFramePulleys; ++i) {
    same = same && sameBits(a.angle[i], b.angle[i]) && sameBits(a.speed[i], b.speed[i]) &&
           sameBits(a.torque[i], b.torque[i]) && sameBits(a.spanForce[i], b.spanForce[i]) &&
           sameBits(a.armAngle[i], b.armAngle[i]) && a.encoderCount[i] == b.encoderCount[i] &&
           sameBits(a.loadCell[i], b.loadCell[i]) && a.inputKind[i] == b.inputKind[i];
  }
  return same;
}

void checkValidation(const CommandFrame& f, const std::uint8_t* p) {
  static const beltsim::PlantConfig configs[2] = {microcontrollerPlantConfig(beltsim::MotorMode::kSpeed),
                                                  microcontrollerPlantConfig(beltsim::MotorMode::kTorque)};
  for (const beltsim::PlantConfig& config : configs) {
    const Rejection r = validateCommand(f, config);
    if (r != Rejection::kNone) continue;
    // An accepted command is finite, in range, of the plant's pulley count and input kinds and
    // without flags; slots beyond the plant's pulleys are 0.
    check(f.pulleyCount == config.pulleyCount && f.flags == 0, "validateCommand accepted another drive or flags", p,
          kCommandFrameSize);
    for (int i = 0; i < kFramePulleys; ++i) {
      const beltsim::PulleyInput kind =
          i < config.pulleyCount ? beltsim::inputOf(config.pulley[i].kind) : beltsim::PulleyInput::kNone;
      check(std::isfinite(f.input[i]), "validateCommand accepted a non-finite value", p, kCommandFrameSize);
      check(f.inputKind[i] == static_cast<std::uint8_t>(kind), "validateCommand accepted a wrong input kind", p,
            kCommandFrameSize);
      check(std::fabs(f.input[i]) <= inputLimit(kind, config.limits), "validateCommand accepted an out-of-range value",
            p, kCommandFrameSize);
    }
  }
}

// Decodes `length` bytes at `p` as a command and as an output frame and checks the properties.
void decodeBoth(const std::uint8_t* p, std::size_t length) {
  CommandFrame c;
  const DecodeError ec = decodeCommand(p, length, c);
  // A wrong length is refused: for its length, or earlier for its header (version 1 says "version").
  if (length != kCommandFrameSize) check(ec != DecodeError::kNone, "command of the wrong length accepted", p, length);
  if (length >= 4 && length != kCommandFrameSize && p[0] == 'B' && p[1] == 'D' && takesVersion(kFrameTypeCommand, p[2]) &&
      p[3] == kFrameTypeCommand)
    check(ec == (length < kCommandFrameSize ? DecodeError::kTruncated : DecodeError::kOversized),
          "command of the wrong length not refused for its length", p, length);
  if (ec == DecodeError::kNone) {
    std::uint8_t again[kCommandFrameSize], expected[kCommandFrameSize];
    encodeCommand(c, again);
    // A version-3 command (the same layout) is taken and re-encoded at today's version.
    std::memcpy(expected, p, kCommandFrameSize);
    expected[2] = kFrameVersion;
    le::putU32(expected + 84, crc32(expected, 84));
    check(std::memcmp(again, expected, kCommandFrameSize) == 0, "command frame does not re-encode to the same bytes", p,
          length);
    CommandFrame c2;
    check(decodeCommand(again, kCommandFrameSize, c2) == DecodeError::kNone && sameCommand(c, c2),
          "re-encoded command frame decodes differently", p, length);
    checkValidation(c, p);
  }

  OutputFrame o;
  const DecodeError eo = decodeOutput(p, length, o);
  if (length != kOutputFrameSize) check(eo != DecodeError::kNone, "output of the wrong length accepted", p, length);
  if (length >= 4 && length != kOutputFrameSize && p[0] == 'B' && p[1] == 'D' && takesVersion(kFrameTypeOutput, p[2]) &&
      p[3] == kFrameTypeOutput)
    check(eo == (length < kOutputFrameSize ? DecodeError::kTruncated : DecodeError::kOversized),
          "output of the wrong length not refused for its length", p, length);
  if (eo == DecodeError::kNone) {
    std::uint8_t again[kOutputFrameSize];
    encodeOutput(o, again);
    check(std::memcmp(again, p, kOutputFrameSize) == 0, "output frame does not re-encode to the same bytes", p,
          length);
    OutputFrame o2;
    check(decodeOutput(again, kOutputFrameSize, o2) == DecodeError::kNone && sameOutput(o, o2),
          "re-encoded output frame decodes differently", p, length);
  }
}

template <typename Stream, std::size_t Size, std::uint8_t Type>
void runStream(const std::uint8_t* data, std::size_t size, std::uint8_t control) {
  Stream stream;
  const std::size_t chunk = (control & 0x3Fu) + 1u;
  const bool everyOther = (control & 0x40u) != 0;
  const bool oneAtATime = (control & 0x80u) != 0;
  std::size_t pushed = 0, popped = 0, chunks = 0;
  std::uint8_t frame[Size];
  auto popSome = [&](bool all) {
    while (stream.pop(frame)) {
      ++popped;
      check(checkFrame(frame, Size, Size, Type) == DecodeError::kNone, "stream popped an invalid frame", frame, Size);
      decodeBoth(frame, Size);
      if (!all) break;
    }
  };
  for (std::size_t at = 0; at < size; at += chunk) {
    const std::size_t n = size - at < chunk ? size - at : chunk;
    // A fresh block of exactly n bytes: push must not read past its length.
    std::unique_ptr<std::uint8_t[]> piece(new std::uint8_t[n]);
    std::memcpy(piece.get(), data + at, n);
    stream.push(piece.get(), n);
    pushed += n;
    if (!everyOther || (chunks++ % 2) == 1) popSome(!oneAtATime);
  }
  popSome(true);
  // Every pushed byte ends up in a frame, as garbage, or (fewer than Size of them) still buffered.
  const std::size_t accounted = popped * Size + stream.garbageBytes();
  check(accounted <= pushed && pushed - accounted < Size, "stream lost or invented bytes", data, size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // libFuzzer's buffer is exactly `size` bytes long.
  decodeBoth(data, size);
  // Every prefix around the frame sizes, in a block of exactly that length.
  const std::size_t maxPrefix = size < kOutputFrameSize + 8 ? size : kOutputFrameSize + 8;
  for (std::size_t length = 0; length <= maxPrefix; ++length) {
    std::unique_ptr<std::uint8_t[]> copy(new std::uint8_t[length]);
    if (length > 0) std::memcpy(copy.get(), data, length);
    decodeBoth(copy.get(), length);
  }
  if (size > 0) {
    const std::uint8_t control = data[size - 1];
    runStream<CommandStream, kCommandFrameSize, kFrameTypeCommand>(data, size - 1, control);
    runStream<OutputStream, kOutputFrameSize, kFrameTypeOutput>(data, size - 1, control);
  }
  return 0;
}
