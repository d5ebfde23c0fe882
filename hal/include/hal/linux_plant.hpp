// Linux backend only (hal/linux/platform_linux.cpp): the plant I/O on descriptors a host tool
// opened itself. `beltsim hil` hands its bound UDP socket over, so that the firmware's tick loop
// (firmware/tick_loop.hpp) reads and answers datagrams through the HAL like a board its UART.
#pragma once

namespace hal {

// Plant I/O from now on on `inFd` and `outFd` (may be the same; -1: none). The input is made
// non-blocking; a datagram socket as input gives PlantFraming::kDatagram, answers then go to the
// last sender. Replaces the descriptors of BELTSIM_PLANT_IN_FD / BELTSIM_PLANT_OUT_FD.
void attachPlantDescriptors(int inFd, int outFd);

}  // namespace hal
