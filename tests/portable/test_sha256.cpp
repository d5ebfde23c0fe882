// SHA-256 (firmware/sha256.hpp) against the examples published with FIPS 180-2 (NIST, "Secure Hash
// Standard", appendix B: one block "abc", two blocks of 448 bits, one million 'a') and the
// 896-bit message of NIST's example set, on every target: the digests are integer arithmetic and
// must be the same bytes everywhere. The lengths next to the padding's boundaries (55, 56, 64
// bytes: the length fits in the last block, just not, a whole block) are checked against digests
// computed with Python's hashlib, an implementation independent of this one.
#include <cstring>

#include "minitest.hpp"
#include "sha256.hpp"

namespace {

using beltsim::fw::kSha256Size;
using beltsim::fw::Sha256;

bool digestIs(const std::uint8_t (&digest)[kSha256Size], const char* hex) {
  for (std::size_t i = 0; i < kSha256Size; ++i) {
    unsigned value = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = hex[2 * i + k];
      value = 16 * value + static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    if (digest[i] != value) return false;
  }
  return hex[2 * kSha256Size] == '\0';
}

bool oneCallGives(const char* message, const char* hex) {
  std::uint8_t digest[kSha256Size];
  beltsim::fw::sha256(reinterpret_cast<const std::uint8_t*>(message), std::strlen(message), digest);
  return digestIs(digest, hex);
}

MT_TEST(TheOneBlockExampleAbc) {
  MT_EXPECT(oneCallGives("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

MT_TEST(TheEmptyMessage) {
  MT_EXPECT(oneCallGives("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
}

MT_TEST(TheTwoBlockExampleOf448Bits) {
  MT_EXPECT(oneCallGives("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
}

MT_TEST(TheExampleOf896Bits) {
  MT_EXPECT(oneCallGives("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                         "mnopqrstnopqrstu",
                         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
}

MT_TEST(OneMillionLettersAStreamedInPiecesOfOddSize) {
  // Pieces of 97 bytes: the blocks' boundaries fall inside the pieces.
  std::uint8_t piece[97];
  std::memset(piece, 'a', sizeof piece);
  Sha256 s;
  std::size_t given = 0;
  while (given < 1000000) {
    const std::size_t n = 1000000 - given < sizeof piece ? 1000000 - given : sizeof piece;
    s.update(piece, n);
    given += n;
  }
  std::uint8_t digest[kSha256Size];
  s.finish(digest);
  MT_EXPECT(digestIs(digest, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
}

MT_TEST(LengthsAtThePaddingsBoundaries) {
  std::uint8_t message[64];
  std::memset(message, 'a', sizeof message);
  std::uint8_t digest[kSha256Size];
  beltsim::fw::sha256(message, 55, digest);  // the 1 bit and the length fit in the one block
  MT_EXPECT(digestIs(digest, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"));
  beltsim::fw::sha256(message, 56, digest);  // the length needs a second block
  MT_EXPECT(digestIs(digest, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"));
  beltsim::fw::sha256(message, 64, digest);  // a whole block, the padding in a second one
  MT_EXPECT(digestIs(digest, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"));
}

MT_TEST(FinishResetsForTheNextMessage) {
  Sha256 s;
  const std::uint8_t junk[3] = {1, 2, 3};
  s.update(junk, 3);
  std::uint8_t digest[kSha256Size];
  s.finish(digest);
  s.update(reinterpret_cast<const std::uint8_t*>("abc"), 3);
  s.finish(digest);
  MT_EXPECT(digestIs(digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
}

}  // namespace
