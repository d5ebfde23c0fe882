// SHA-256 (FIPS 180-4) for signing frames: fixed-size state, no heap, every loop bounded by its
// input's length, the same bytes out on every target (integer arithmetic only, big-endian words
// read and written byte by byte). Streaming (Sha256: update as often as needed, then finish) and
// one call (sha256).
//
// The algorithm, FIPS 180-4 §6.2: the message is padded with a 1 bit, zeros and its length in bits
// (64-bit big-endian) to a multiple of 64 bytes; each 64-byte block is expanded into 64 words
// W_t (W_t = s1(W_t-2) + W_t-7 + s0(W_t-15) + W_t-16 for t >= 16) and mixed into the eight
// working words a..h over 64 rounds with the constants K_t (the first 32 bits of the fractional
// parts of the cube roots of the first 64 primes); the hash is the eight words H_i (initially the
// first 32 bits of the fractional parts of the square roots of the first 8 primes) after the last
// block, big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

namespace beltsim::fw {

constexpr std::size_t kSha256Size = 32;  // bytes of a digest

class Sha256 {
 public:
  Sha256() { reset(); }

  void reset() {
    for (int i = 0; i < 8; ++i) h_[i] = kInitial[i];
    buffered_ = 0;
    length_ = 0;
  }

  void update(const std::uint8_t* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      block_[buffered_++] = data[i];
      if (buffered_ == 64) {
        compress(block_);
        buffered_ = 0;
      }
    }
    length_ += static_cast<std::uint64_t>(size);
  }

  // The digest of everything given since the last reset; the object is reset afterwards.
  void finish(std::uint8_t (&digest)[kSha256Size]) {
    const std::uint64_t bits = length_ * 8u;
    block_[buffered_++] = 0x80u;
    if (buffered_ > 56) {  // no room for the length: one more block
      while (buffered_ < 64) block_[buffered_++] = 0u;
      compress(block_);
      buffered_ = 0;
    }
    while (buffered_ < 56) block_[buffered_++] = 0u;
    for (int i = 0; i < 8; ++i) block_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
    compress(block_);
    for (int i = 0; i < 8; ++i)
      for (int b = 0; b < 4; ++b) digest[4 * i + b] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * b));
    reset();
  }

 private:
  static constexpr std::uint32_t kInitial[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                                0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  static constexpr std::uint32_t kRound[64] = {
      0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
      0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
      0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
      0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
      0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
      0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
      0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
      0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u};

  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void compress(const std::uint8_t* block) {
    std::uint32_t w[64];
    for (int t = 0; t < 16; ++t)
      w[t] = (static_cast<std::uint32_t>(block[4 * t]) << 24) | (static_cast<std::uint32_t>(block[4 * t + 1]) << 16) |
             (static_cast<std::uint32_t>(block[4 * t + 2]) << 8) | static_cast<std::uint32_t>(block[4 * t + 3]);
    for (int t = 16; t < 64; ++t) {
      const std::uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const std::uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int t = 0; t < 64; ++t) {
      const std::uint32_t bigSigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const std::uint32_t choose = (e & f) ^ (~e & g);
      const std::uint32_t t1 = h + bigSigma1 + choose + kRound[t] + w[t];
      const std::uint32_t bigSigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const std::uint32_t t2 = bigSigma0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  std::uint32_t h_[8];
  std::uint8_t block_[64];
  std::size_t buffered_ = 0;  // bytes of block_ filled
  std::uint64_t length_ = 0;  // bytes given since reset
};

inline void sha256(const std::uint8_t* data, std::size_t size, std::uint8_t (&digest)[kSha256Size]) {
  Sha256 s;
  s.update(data, size);
  s.finish(digest);
}

}  // namespace beltsim::fw
