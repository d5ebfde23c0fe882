// `beltsim inject`: the test bench's side of a live injected fault. Sends one fault command to a
// plant that runs `beltsim hil --bench ADDR` (from that address) and prints the plant's
// acknowledgement: accepted, and from which step it acts, or why it was refused
// (firmware/PROTOCOL.md, "Test bench frames"; docs/injected_faults.md, "Live faults").
#pragma once
#include <cstdint>
#include <string>

namespace beltsim::host {

struct InjectOptions {
  std::string plantAddress = "127.0.0.1:47800";  // where the plant listens (hil --udp)
  std::string benchAddress;                      // this tool's address: the plant's --bench
  int table = 0;                                 // the scenario's [[fault]] k, from 0
  bool start = true;                             // start (true) or clear (false) the table
  double value = 0.0;  // a start's value (the table's unit; 0 for stuck and reverse); a clear keeps the table's
  // The bench's sequence number; 0: milliseconds of the wall clock (mod 2^32), which increase from
  // one call to the next as the plant requires.
  std::uint32_t sequence = 0;
  int timeoutMs = 2000;  // how long to wait for the acknowledgement
};

// 0: accepted; 1: refused (the reason printed); 2: no answer or a local error.
int runInject(const InjectOptions& options);

}  // namespace beltsim::host
