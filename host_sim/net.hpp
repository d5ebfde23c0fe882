// Datagram and stream sockets of the host tools (beltsim hil, beltctl): UDP for the host plant,
// TCP for the board's UART under QEMU. Thin wrappers over POSIX sockets; errors are returned as
// text, never thrown.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <netinet/in.h>

namespace beltsim::host {

// "HOST:PORT" with a numeric IPv4 address or "localhost".
bool parseAddress(const std::string& text, sockaddr_in& out, std::string& error);
std::string formatAddress(const sockaddr_in& address);

class UdpSocket {
 public:
  UdpSocket() = default;
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;
  ~UdpSocket();
  // Bind to `local` (port 0: any free port).
  bool open(const sockaddr_in& local, std::string& error);
  sockaddr_in localAddress() const;
  // The bound socket, for the HAL's plant I/O (beltsim hil; hal/linux_plant.hpp); -1 if not open.
  int fd() const { return fd_; }
  // Waits up to timeoutUs microseconds (0: just look, < 0: forever) for one datagram; returns its
  // length, 0 on timeout, -1 on error. A datagram longer than `capacity` is truncated and
  // reported with its real length (> capacity).
  long receive(std::uint8_t* buffer, std::size_t capacity, sockaddr_in& from, long long timeoutUs);
  bool send(const std::uint8_t* data, std::size_t length, const sockaddr_in& to);

 private:
  int fd_ = -1;
};

// A connected TCP byte stream (client side).
class TcpStream {
 public:
  TcpStream() = default;
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;
  ~TcpStream();
  // Connects, retrying for up to retryMs (QEMU opens its socket a moment after it starts).
  bool connect(const sockaddr_in& remote, int retryMs, std::string& error);
  // Waits up to timeoutUs microseconds for bytes; returns how many were read, 0 on timeout, -1 on
  // error/EOF.
  long receive(std::uint8_t* buffer, std::size_t capacity, long long timeoutUs);
  bool send(const std::uint8_t* data, std::size_t length);

 private:
  int fd_ = -1;
};

}  // namespace beltsim::host
