#include "inject.hpp"

#include <cstdio>
#include <ctime>

#include "frames.hpp"
#include "net.hpp"

namespace beltsim::host {
namespace {

const char* resultText(fw::FaultCommandResult r) {
  switch (r) {
    case fw::FaultCommandResult::kAccepted: return "accepted";
    case fw::FaultCommandResult::kCorrupt: return "refused: the frame was malformed";
    case fw::FaultCommandResult::kStale: return "refused: its sequence is not above the last accepted one";
    case fw::FaultCommandResult::kNoTable: return "refused: the scenario has no such [[fault]] table";
    case fw::FaultCommandResult::kNotLive: return "refused: the table is not marked live = true";
    case fw::FaultCommandResult::kBadAction: return "refused: unknown action";
    case fw::FaultCommandResult::kOutOfRange: return "refused: the value is not finite or outside the table's min..max";
    case fw::FaultCommandResult::kSafeState: return "refused: the plant is in its safe state";
  }
  return "refused: unknown result";
}

std::uint32_t wallClockMilliseconds() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const unsigned long long ms = static_cast<unsigned long long>(ts.tv_sec) * 1000ull +
                                static_cast<unsigned long long>(ts.tv_nsec) / 1000000ull;
  return static_cast<std::uint32_t>(ms);
}

}  // namespace

int runInject(const InjectOptions& o) {
  std::string error;
  sockaddr_in plant{}, bench{};
  if (!parseAddress(o.plantAddress, plant, error) || !parseAddress(o.benchAddress, bench, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  if (o.table < 0 || o.table > 7) {
    std::fprintf(stderr, "error: --table: from 0 to 7 (the scenario's [[fault]] tables, from 0)\n");
    return 2;
  }
  UdpSocket socket;
  if (!socket.open(bench, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  fw::FaultCommandFrame command;
  command.sequence = o.sequence != 0 ? o.sequence : wallClockMilliseconds();
  command.table = static_cast<std::uint8_t>(o.table);
  command.action = static_cast<std::uint8_t>(o.start ? fw::FaultAction::kStart : fw::FaultAction::kClear);
  command.value = o.value;
  std::uint8_t bytes[fw::kFaultCommandFrameSize];
  fw::encodeFaultCommand(command, bytes);
  if (!socket.send(bytes, sizeof bytes, plant)) {
    std::fprintf(stderr, "error: cannot send to %s\n", o.plantAddress.c_str());
    return 2;
  }
  // The answer comes with the plant's next step (lockstep: the controller's next frame); anything
  // else that arrives meanwhile is skipped, within the one time limit.
  std::uint8_t answer[64];
  const long long limitUs = static_cast<long long>(o.timeoutMs) * 1000;
  timespec begin{};
  clock_gettime(CLOCK_MONOTONIC, &begin);
  for (;;) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long long waitedUs = (now.tv_sec - begin.tv_sec) * 1000000ll + (now.tv_nsec - begin.tv_nsec) / 1000;
    sockaddr_in from{};
    const long n = waitedUs < limitUs ? socket.receive(answer, sizeof answer, from, limitUs - waitedUs) : 0;
    if (n <= 0) {
      std::fprintf(stderr, "error: no acknowledgement from %s within %d ms (is it running with --bench %s?)\n",
                   o.plantAddress.c_str(), o.timeoutMs, o.benchAddress.c_str());
      return 2;
    }
    fw::FaultAckFrame ack;
    const bool fromPlant = from.sin_addr.s_addr == plant.sin_addr.s_addr && from.sin_port == plant.sin_port;
    if (!fromPlant || fw::decodeFaultAck(answer, static_cast<std::size_t>(n), ack) != fw::DecodeError::kNone ||
        ack.sequence != command.sequence)
      continue;  // not the answer to this command
    std::printf("fault command %u (table %u, %s, value %.17g): %s", ack.sequence, ack.table,
                ack.action == static_cast<std::uint8_t>(fw::FaultAction::kStart) ? "start" : "clear", ack.value,
                resultText(ack.result));
    if (ack.result == fw::FaultCommandResult::kAccepted) std::printf("; acts from step %u", ack.effectiveStep);
    std::printf(" (plant at step %u; fault commands accepted %u, refused %u; foreign datagrams %u)\n", ack.steps,
                ack.accepted, ack.refused, ack.foreign);
    return ack.result == fw::FaultCommandResult::kAccepted ? 0 : 1;
  }
}

}  // namespace beltsim::host
