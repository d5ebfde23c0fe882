// Recordings of `beltsim hil`: everything the plant received, in order, with the tick it was
// applied to, plus every tick's elapsed-period count. `beltsim replay` feeds them to the same
// plant loop and reproduces the output trace bit for bit, without the controller.
//
// File: "BELTREC4" (a "BELTREC3" recording, of protocol version 3, is read as well: its frames to
// the plant have today's layout), then three length-prefixed strings (u32 little-endian length + bytes): the
// scenario file name, its full text, and the hil options ("key=value" lines); then records:
//   u8 1 (frame), u32 tick, u16 length, bytes   -- a datagram/frame received before tick `tick`
//   u8 2 (tick),  u32 tick, u32 elapsed          -- tick `tick` ran with `elapsed` periods
//   u8 3 (tick),  u32 tick, u32 elapsed          -- the same, its overrun caused by the step's compute
//   u8 4 (fault), u32 tick, u16 length, bytes   -- a test bench's datagram (--bench) applied before tick
//                                                  `tick` (a fault command, firmware/PROTOCOL.md)
//   u8 5 (acting), u32 tick, u16 1, u8 mask     -- from output step `tick` on, the injected fault
//                                                  tables of bit mask `mask` act (for the bench's
//                                                  log; a replay computes them and checks)
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace beltsim::host {

struct RecordingHeader {
  std::string scenarioName;
  std::string scenarioText;
  std::string options;
  int version = 4;  // the protocol version of the recorded frames (read from the magic)
};

class RecordingWriter {
 public:
  ~RecordingWriter();
  bool open(const std::string& path, const RecordingHeader& header, std::string& error);
  void frame(std::uint32_t tick, const std::uint8_t* data, std::size_t length);
  void tick(std::uint32_t tick, std::uint32_t elapsed, bool computeOverrun);
  void faultCommand(std::uint32_t tick, const std::uint8_t* data, std::size_t length);
  void faultsActing(std::uint32_t step, std::uint8_t mask);
  bool close();

 private:
  void record(std::uint8_t kind, std::uint32_t tick, const std::uint8_t* data, std::size_t length);
  std::FILE* f_ = nullptr;
  bool ok_ = true;
};

struct RecordedEvent {
  enum class Kind : std::uint8_t { kFrame = 1, kTick = 2, kFaultCommand = 4, kFaultsActing = 5 } kind = Kind::kTick;
  std::uint32_t tick = 0;
  std::uint32_t elapsed = 0;       // kTick
  bool computeOverrun = false;     // kTick: its overrun was the step's own
  std::vector<std::uint8_t> data;  // kFrame, kFaultCommand; kFaultsActing: the mask
};

// Reads a whole recording; on a malformed file names the byte offset.
bool readRecording(const std::string& path, RecordingHeader& header, std::vector<RecordedEvent>& events,
                   std::string& error);

}  // namespace beltsim::host
