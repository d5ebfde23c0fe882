// minitest: a tiny self-contained test runner that works on every target, bare metal included.
// No heap, no exceptions, no stdio: output goes through hal::consoleWrite. Tests register
// themselves in a static linked list. The closing line is "N passed, N failed".
#pragma once
#include <cstdint>

namespace minitest {

struct Context {
  const char* testName;
  int failures;
};

using TestFunction = void (*)(Context&);

struct Registration {
  const char* name;
  TestFunction function;
  Registration* next;
};

void registerTest(Registration* registration);

// Runs all registered tests in registration order; prints one line per test and the summary.
// Returns the number of failed tests.
int runAll(const char* suiteName);

// Failure reporting used by the macros.
void fail(Context& ctx, const char* file, int line, const char* what);
void failNear(Context& ctx, const char* file, int line, const char* what, double actual,
              double expected, double tolerance);

// Output helpers (no printf on bare metal).
void print(const char* text);
void printInt(long long value);
void printDouble(double value);      // about 10 significant digits, for messages
void printHexBits(double value);     // the exact IEEE-754 bit pattern, 0x%016llx
std::uint64_t bitsOf(double value);

}  // namespace minitest

#define MT_CONCAT_INNER(a, b) a##b
#define MT_CONCAT(a, b) MT_CONCAT_INNER(a, b)

#define MT_TEST(name)                                                                    \
  static void name(::minitest::Context& mt_ctx);                                         \
  static ::minitest::Registration MT_CONCAT(name, _registration){#name, &name, nullptr}; \
  static const bool MT_CONCAT(name, _registered) =                                       \
      (::minitest::registerTest(&MT_CONCAT(name, _registration)), true);                 \
  static void name(::minitest::Context& mt_ctx)

#define MT_EXPECT(condition)                                                      \
  do {                                                                            \
    if (!(condition)) ::minitest::fail(mt_ctx, __FILE__, __LINE__, #condition);   \
  } while (0)

// |actual - expected| <= tolerance (absolute).
#define MT_EXPECT_NEAR(actual, expected, tolerance)                                          \
  do {                                                                                       \
    const double mt_a = (actual), mt_e = (expected), mt_t = (tolerance);                     \
    if (!(mt_a - mt_e <= mt_t && mt_e - mt_a <= mt_t))                                       \
      ::minitest::failNear(mt_ctx, __FILE__, __LINE__, #actual " ~ " #expected, mt_a, mt_e, mt_t); \
  } while (0)

// |actual - expected| <= rel * |expected|.
#define MT_EXPECT_REL(actual, expected, rel)                                                 \
  do {                                                                                       \
    const double mt_a = (actual), mt_e = (expected);                                         \
    const double mt_t = (rel) * (mt_e < 0 ? -mt_e : mt_e);                                   \
    if (!(mt_a - mt_e <= mt_t && mt_e - mt_a <= mt_t))                                       \
      ::minitest::failNear(mt_ctx, __FILE__, __LINE__, #actual " ~rel " #expected, mt_a, mt_e, mt_t); \
  } while (0)
