// Minimal text formatting for the console without stdio (newlib's printf pulls malloc into the
// Cortex-M7 image). Appends to a caller buffer; never writes past it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace beltsim::fw {

class TextLine {
 public:
  TextLine& text(const char* s) {
    while (*s != '\0' && length_ + 1 < kCapacity) buffer_[length_++] = *s++;
    buffer_[length_] = '\0';
    return *this;
  }
  TextLine& u64(std::uint64_t v) {
    char digits[21];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0 && n < 20);
    while (n > 0 && length_ + 1 < kCapacity) buffer_[length_++] = digits[--n];
    buffer_[length_] = '\0';
    return *this;
  }
  TextLine& i64(std::int64_t v) {
    if (v < 0) {
      text("-");
      return u64(static_cast<std::uint64_t>(-(v + 1)) + 1u);
    }
    return u64(static_cast<std::uint64_t>(v));
  }
  TextLine& hex64(std::uint64_t v) {
    text("0x");
    for (int shift = 60; shift >= 0; shift -= 4) {
      const char c[2] = {"0123456789abcdef"[(v >> shift) & 0xFu], '\0'};
      text(c);
    }
    return *this;
  }
  // Fixed-point display of a double (for logs only; the bit-exact values go through hex64).
  TextLine& fixed(double v, int decimals) {
    if (!(v == v)) return text("nan");
    if (v < 0) {
      text("-");
      v = -v;
    }
    if (v > 1e15) return text("inf");
    std::uint64_t scale = 1;
    for (int i = 0; i < decimals; ++i) scale *= 10;
    const std::uint64_t scaled = static_cast<std::uint64_t>(v * static_cast<double>(scale) + 0.5);
    u64(scaled / scale);
    if (decimals > 0) {
      text(".");
      std::uint64_t frac = scaled % scale;
      for (std::uint64_t d = scale / 10; d > 0; d /= 10) {
        const char c[2] = {static_cast<char>('0' + (frac / d) % 10), '\0'};
        text(c);
      }
    }
    return *this;
  }
  const char* c_str() const { return buffer_; }
  std::size_t size() const { return length_; }
  void clear() {
    length_ = 0;
    buffer_[0] = '\0';
  }

 private:
  static constexpr std::size_t kCapacity = 160;
  char buffer_[kCapacity] = {};
  std::size_t length_ = 0;
};

}  // namespace beltsim::fw
