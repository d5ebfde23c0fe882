// Linux backend only (hal/linux/platform_linux.cpp): the plant I/O on descriptors a host tool
// opened itself. `beltsim hil` hands its bound UDP socket over, so that the firmware's tick loop
// (firmware/tick_loop.hpp) reads and answers datagrams through the HAL like a board its UART.
#pragma once
#include <cstddef>
#include <cstdint>
#include <sys/socket.h>

namespace hal {

// Plant I/O from now on on `inFd` and `outFd` (may be the same; -1: none). The input is made
// non-blocking; a datagram socket as input gives PlantFraming::kDatagram, answers then go to the
// last sender. Replaces the descriptors of BELTSIM_PLANT_IN_FD / BELTSIM_PLANT_OUT_FD.
void attachPlantDescriptors(int inFd, int outFd);

// Who may talk to the plant over datagrams: one peer, the controller. lockPlantPeer fixes it
// (beltsim hil --controller ADDR); without it the plant locks to the first sender of a datagram
// that starts like a command frame (magic "BD", type 1). From then on datagrams from any other
// address are dropped unread by the tick loop, never answered and only counted here; before the
// lock, so are a test bench's frames (types 3 and 4) from any address but the bench's.
void lockPlantPeer(const sockaddr* address, socklen_t length);
std::uint32_t plantForeignDatagrams();

// The test bench (beltsim hil --bench ADDR), a second peer: its datagrams are never read as the
// controller's, but kept apart (a fixed queue of kBenchQueueSlots; when full, the newest are
// dropped and counted) until benchRead takes them; benchWrite answers it. Without a bench set,
// datagrams from its address are foreign like any other.
constexpr int kBenchQueueSlots = 32;
constexpr std::size_t kBenchSlotBytes = 48;  // a longer datagram is kept cut to this (still oversized)
void setPlantBench(const sockaddr* address, socklen_t length);
std::size_t benchRead(std::uint8_t* buffer, std::size_t capacity);  // 0: none queued
void benchWrite(const std::uint8_t* data, std::size_t length);
std::uint32_t benchDroppedDatagrams();

}  // namespace hal
