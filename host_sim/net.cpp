#include "net.hpp"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

namespace beltsim::host {
namespace {

int waitReadable(int fd, long long timeoutUs) {
  pollfd p{fd, POLLIN, 0};
  timespec ts{static_cast<time_t>(timeoutUs / 1000000), static_cast<long>(timeoutUs % 1000000) * 1000};
  for (;;) {
    const int r = ::ppoll(&p, 1, timeoutUs < 0 ? nullptr : &ts, nullptr);
    if (r < 0 && errno == EINTR) continue;
    return r;
  }
}

}  // namespace

bool parseAddress(const std::string& text, sockaddr_in& out, std::string& error) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    error = "address '" + text + "': expected HOST:PORT";
    return false;
  }
  std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (host == "localhost") host = "127.0.0.1";
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || end == nullptr || *end != '\0' || p < 0 || p > 65535) {
    error = "address '" + text + "': port must be 0..65535";
    return false;
  }
  std::memset(&out, 0, sizeof out);
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(p));
  if (::inet_pton(AF_INET, host.c_str(), &out.sin_addr) != 1) {
    error = "address '" + text + "': host must be a numeric IPv4 address or localhost";
    return false;
  }
  return true;
}

std::string formatAddress(const sockaddr_in& a) {
  char host[INET_ADDRSTRLEN] = "?";
  ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(a.sin_port));
}

UdpSocket::~UdpSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool UdpSocket::open(const sockaddr_in& local, std::string& error) {
  fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
  if (fd_ < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    error = "bind " + formatAddress(local) + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

sockaddr_in UdpSocket::localAddress() const {
  sockaddr_in a{};
  socklen_t n = sizeof a;
  ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
  return a;
}

long UdpSocket::receive(std::uint8_t* buffer, std::size_t capacity, sockaddr_in& from, long long timeoutUs) {
  const int r = waitReadable(fd_, timeoutUs);
  if (r <= 0) return r;
  socklen_t n = sizeof from;
  // MSG_TRUNC: the return value is the datagram's real length, so oversized frames are seen.
  const ssize_t got = ::recvfrom(fd_, buffer, capacity, MSG_TRUNC, reinterpret_cast<sockaddr*>(&from), &n);
  return got < 0 ? -1 : static_cast<long>(got);
}

bool UdpSocket::send(const std::uint8_t* data, std::size_t length, const sockaddr_in& to) {
  return ::sendto(fd_, data, length, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) ==
         static_cast<ssize_t>(length);
}

TcpStream::~TcpStream() {
  if (fd_ >= 0) ::close(fd_);
}

bool TcpStream::connect(const sockaddr_in& remote, int retryMs, std::string& error) {
  for (int waited = 0;; waited += 100) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) {
      error = std::string("socket: ") + std::strerror(errno);
      return false;
    }
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&remote), sizeof remote) == 0) return true;
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    if (waited >= retryMs) {
      error = "connect " + formatAddress(remote) + ": " + std::strerror(e);
      return false;
    }
    timespec ts{0, 100000000};
    ::nanosleep(&ts, nullptr);
  }
}

long TcpStream::receive(std::uint8_t* buffer, std::size_t capacity, long long timeoutUs) {
  const int r = waitReadable(fd_, timeoutUs);
  if (r <= 0) return r;
  const ssize_t got = ::recv(fd_, buffer, capacity, 0);
  return got <= 0 ? -1 : static_cast<long>(got);
}

bool TcpStream::send(const std::uint8_t* data, std::size_t length) {
  while (length > 0) {
    const ssize_t n = ::send(fd_, data, length, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    length -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace beltsim::host
