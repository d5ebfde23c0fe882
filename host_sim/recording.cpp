#include "recording.hpp"

#include <cstring>

namespace beltsim::host {
namespace {

// The magic's last character is the protocol version of the recorded frames (4: byte 455 of the
// output frame reserved, the acting faults as record 5; 3: output frames with the step's residual
// and post-Newton error; 2: the overrun cause as record 3). Version 3's frames to the plant have
// today's layout, so its recordings replay; an older one holds frames this plant refuses: it is
// named as such instead of replayed wrongly.
constexpr char kMagic[8] = {'B', 'E', 'L', 'T', 'R', 'E', 'C', '4'};
constexpr char kOldestReplayed = '3';

void putU32(std::FILE* f, std::uint32_t v) {
  const std::uint8_t b[4] = {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8),
                             static_cast<std::uint8_t>(v >> 16), static_cast<std::uint8_t>(v >> 24)};
  std::fwrite(b, 1, 4, f);
}

struct Reader {
  const std::vector<std::uint8_t>& bytes;
  std::size_t at = 0;
  bool u8(std::uint8_t& v) {
    if (at + 1 > bytes.size()) return false;
    v = bytes[at++];
    return true;
  }
  bool u16(std::uint16_t& v) {
    if (at + 2 > bytes.size()) return false;
    v = static_cast<std::uint16_t>(bytes[at] | (bytes[at + 1] << 8));
    at += 2;
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (at + 4 > bytes.size()) return false;
    v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | bytes[at + i];
    at += 4;
    return true;
  }
  bool raw(std::size_t n, std::vector<std::uint8_t>& out) {
    if (n > bytes.size() - at) return false;
    out.assign(bytes.begin() + static_cast<long>(at), bytes.begin() + static_cast<long>(at + n));
    at += n;
    return true;
  }
  bool text(std::string& out) {
    std::uint32_t n;
    std::vector<std::uint8_t> b;
    if (!u32(n) || !raw(n, b)) return false;
    out.assign(b.begin(), b.end());
    return true;
  }
};

}  // namespace

RecordingWriter::~RecordingWriter() { close(); }

bool RecordingWriter::open(const std::string& path, const RecordingHeader& h, std::string& error) {
  f_ = std::fopen(path.c_str(), "wb");
  if (f_ == nullptr) {
    error = "cannot write recording " + path;
    return false;
  }
  std::fwrite(kMagic, 1, 8, f_);
  for (const std::string* s : {&h.scenarioName, &h.scenarioText, &h.options}) {
    putU32(f_, static_cast<std::uint32_t>(s->size()));
    std::fwrite(s->data(), 1, s->size(), f_);
  }
  return true;
}

void RecordingWriter::frame(std::uint32_t tick, const std::uint8_t* data, std::size_t length) {
  record(1, tick, data, length);
}

void RecordingWriter::faultCommand(std::uint32_t tick, const std::uint8_t* data, std::size_t length) {
  record(4, tick, data, length);
}

void RecordingWriter::faultsActing(std::uint32_t step, std::uint8_t mask) { record(5, step, &mask, 1); }

void RecordingWriter::record(std::uint8_t kind, std::uint32_t tick, const std::uint8_t* data, std::size_t length) {
  if (f_ == nullptr) return;
  const std::uint16_t n = static_cast<std::uint16_t>(length > 65535 ? 65535 : length);
  std::fputc(kind, f_);
  putU32(f_, tick);
  const std::uint8_t b[2] = {static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8)};
  std::fwrite(b, 1, 2, f_);
  ok_ = std::fwrite(data, 1, n, f_) == n && ok_;
}

void RecordingWriter::tick(std::uint32_t tick, std::uint32_t elapsed, bool computeOverrun) {
  if (f_ == nullptr) return;
  std::fputc(computeOverrun ? 3 : 2, f_);
  putU32(f_, tick);
  putU32(f_, elapsed);
}

bool RecordingWriter::close() {
  if (f_ == nullptr) return ok_;
  ok_ = std::fclose(f_) == 0 && ok_;
  f_ = nullptr;
  return ok_;
}

bool readRecording(const std::string& path, RecordingHeader& header, std::vector<RecordedEvent>& events,
                   std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    error = "cannot read recording " + path;
    return false;
  }
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[65536];
  for (;;) {
    const std::size_t n = std::fread(chunk, 1, sizeof chunk, f);
    bytes.insert(bytes.end(), chunk, chunk + n);
    if (n < sizeof chunk) break;
  }
  std::fclose(f);
  if (bytes.size() >= 8 && std::memcmp(bytes.data(), kMagic, 7) == 0 && bytes[7] >= '1' && bytes[7] < kOldestReplayed) {
    error = path + ": a recording of protocol version " + static_cast<char>(bytes[7]) + " (BELTREC" +
            static_cast<char>(bytes[7]) + "): replay it with the beltsim that made it";
    return false;
  }
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 7) != 0 || bytes[7] < kOldestReplayed ||
      bytes[7] > kMagic[7]) {
    error = path + ": not a beltsim recording (magic BELTREC4 or BELTREC3 missing)";
    return false;
  }
  header.version = bytes[7] - '0';
  Reader r{bytes, 8};
  if (!r.text(header.scenarioName) || !r.text(header.scenarioText) || !r.text(header.options)) {
    error = path + ": truncated header";
    return false;
  }
  events.clear();
  while (r.at < bytes.size()) {
    const std::size_t offset = r.at;
    std::uint8_t kind;
    RecordedEvent e;
    bool ok = r.u8(kind) && r.u32(e.tick);
    if (ok && (kind == 1 || kind == 4 || kind == 5)) {
      std::uint16_t n;
      e.kind = kind == 1 ? RecordedEvent::Kind::kFrame
               : kind == 4 ? RecordedEvent::Kind::kFaultCommand
                           : RecordedEvent::Kind::kFaultsActing;
      ok = r.u16(n) && r.raw(n, e.data) && (kind != 5 || n == 1);
    } else if (ok && (kind == 2 || kind == 3)) {
      e.kind = RecordedEvent::Kind::kTick;
      e.computeOverrun = kind == 3;
      ok = r.u32(e.elapsed);
    } else {
      ok = false;
    }
    if (!ok) {
      error = path + ": malformed record at byte " + std::to_string(offset);
      return false;
    }
    events.push_back(std::move(e));
  }
  return true;
}

}  // namespace beltsim::host
