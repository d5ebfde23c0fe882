// Writes the seed corpus of fuzz_frames into the folder given as argument (scripts/fuzz.sh):
// command.bin and output.bin (one valid frame each), stream_command.bin and stream_output.bin
// (frames between garbage bytes, ending with the target's chunking control byte),
// command_reserved.bin and output_reserved.bin (a reserved field set, valid CRC).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "frames.hpp"

namespace {

using namespace beltsim::fw;

bool write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

// A two-pulley command (motor input of kind `mode`, a load torque on pulley 2).
std::vector<std::uint8_t> command(std::uint32_t sequence, std::uint8_t mode, double motor, double load) {
  CommandFrame c;
  c.sequence = sequence;
  c.pulleyCount = 2;
  c.inputKind[0] = mode;
  c.inputKind[1] = 3;
  c.input[0] = motor;
  c.input[1] = load;
  std::uint8_t bytes[kCommandFrameSize];
  encodeCommand(c, bytes);
  return std::vector<std::uint8_t>(bytes, bytes + kCommandFrameSize);
}

std::vector<std::uint8_t> output(std::uint32_t sequence) {
  OutputFrame o;
  o.sequence = sequence;
  o.step = 2 * sequence;
  o.commandSequence = sequence - 1;
  o.time = 2e-3 * sequence;
  o.angle[0] = 0.125;
  o.angle[1] = -0.0625;
  o.speed[0] = 12.0;
  o.speed[1] = 11.34;
  o.torque[0] = 47.68;
  o.torque[1] = -25.0;
  o.spanForce[0] = 665.22;
  o.spanForce[1] = 186.65;
  o.encoderCount[0] = 81;
  o.encoderCount[1] = -41;
  o.loadCell[0] = 665.0;
  o.loadCell[1] = 186.5;
  o.converged = 1;
  o.newtonIterations = 3;
  o.pnsIterations = 2;
  o.pulleyCount = 2;
  o.inputKind[0] = 1;
  o.inputKind[1] = 3;
  o.overruns = 1;
  o.rejectedFrames = 2;
  o.lateFrames = 3;
  std::uint8_t bytes[kOutputFrameSize];
  encodeOutput(o, bytes);
  return std::vector<std::uint8_t>(bytes, bytes + kOutputFrameSize);
}

void append(std::vector<std::uint8_t>& to, const std::vector<std::uint8_t>& bytes) {
  to.insert(to.end(), bytes.begin(), bytes.end());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SEED_FOLDER\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<std::uint8_t> garbage{0x42, 0x44, 0x02, 0x07, 0x00};

  std::vector<std::uint8_t> commands = garbage;
  append(commands, command(7, 1, 12.0, 25.0));
  append(commands, command(8, 2, -3.5, 0.0));
  commands.push_back(0x00);
  append(commands, command(9, 1, 1e300, -0.0));
  commands.push_back(0x0B);  // control byte: chunks of 12 bytes

  std::vector<std::uint8_t> outputs = garbage;
  append(outputs, output(5));
  append(outputs, output(6));
  outputs.push_back(0x46);  // control byte: chunks of 7 bytes, pop after every other chunk

  // A reserved field set, CRC valid: the decoder must refuse it (PROTOCOL.md, common rules), in a
  // command frame (bytes 10..11) and in an output frame (byte 455).
  std::vector<std::uint8_t> commandReserved = command(7, 1, 12.0, 25.0);
  commandReserved[10] = 0x01;
  le::putU32(commandReserved.data() + 84, crc32(commandReserved.data(), 84));
  std::vector<std::uint8_t> outputReserved = output(5);
  outputReserved[455] = 0x01;
  le::putU32(outputReserved.data() + 504, crc32(outputReserved.data(), 504));

  const bool ok = write(dir + "/command.bin", command(7, 1, 12.0, 25.0)) &&
                  write(dir + "/command_reserved.bin", commandReserved) &&
                  write(dir + "/output_reserved.bin", outputReserved) &&
                  write(dir + "/command_torque.bin", command(0xFFFFFFFFu, 2, -30.0, 1e-3)) &&
                  write(dir + "/output.bin", output(5)) && write(dir + "/stream_command.bin", commands) &&
                  write(dir + "/stream_output.bin", outputs);
  if (!ok) {
    std::fprintf(stderr, "could not write the seeds to %s\n", dir.c_str());
    return 1;
  }
  return 0;
}
