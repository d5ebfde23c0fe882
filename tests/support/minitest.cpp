#include "minitest.hpp"

#include <cstring>

#include "hal/platform.hpp"

namespace minitest {
namespace {
Registration* g_first = nullptr;
Registration* g_last = nullptr;
}  // namespace

void registerTest(Registration* registration) {
  registration->next = nullptr;
  if (g_last == nullptr) {
    g_first = registration;
  } else {
    g_last->next = registration;
  }
  g_last = registration;
}

void print(const char* text) { hal::consoleWrite(text); }

void printInt(long long value) {
  char buffer[24];
  int position = 23;
  buffer[position] = '\0';
  const bool negative = value < 0;
  unsigned long long magnitude =
      negative ? 0ull - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
  do {
    buffer[--position] = static_cast<char>('0' + magnitude % 10u);
    magnitude /= 10u;
  } while (magnitude != 0u && position > 1);
  if (negative) buffer[--position] = '-';
  print(&buffer[position]);
}

std::uint64_t bitsOf(double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

void printHexBits(double value) {
  const std::uint64_t bits = bitsOf(value);
  char buffer[19];
  buffer[0] = '0';
  buffer[1] = 'x';
  for (int nibble = 0; nibble < 16; ++nibble) {
    const unsigned digit = static_cast<unsigned>((bits >> (60 - 4 * nibble)) & 0xFu);
    buffer[2 + nibble] = static_cast<char>(digit < 10u ? '0' + digit : 'a' + digit - 10u);
  }
  buffer[18] = '\0';
  print(buffer);
}

void printDouble(double value) {
  if (value != value) {
    print("nan");
    return;
  }
  if (value < 0) {
    print("-");
    value = -value;
  }
  if (value > 1.0e300) {
    print("inf");
    return;
  }
  if (value == 0.0) {
    print("0");
    return;
  }
  // Scientific notation with 10 significant digits (diagnostic precision only).
  int exponent = 0;
  for (int guard = 0; value >= 10.0 && guard < 400; ++guard) { value /= 10.0; ++exponent; }
  for (int guard = 0; value < 1.0 && guard < 400; ++guard) { value *= 10.0; --exponent; }
  long long mantissa = static_cast<long long>(value * 1.0e9 + 0.5);
  if (mantissa >= 10000000000ll) { mantissa /= 10; ++exponent; }
  char digits[11];
  for (int i = 9; i >= 0; --i) { digits[i] = static_cast<char>('0' + mantissa % 10); mantissa /= 10; }
  digits[10] = '\0';
  char head[3] = {digits[0], '.', '\0'};
  print(head);
  print(&digits[1]);
  print("e");
  printInt(exponent);
}

void fail(Context& ctx, const char* file, int line, const char* what) {
  ++ctx.failures;
  print("  FAILED ");
  print(file);
  print(":");
  printInt(line);
  print(": ");
  print(what);
  print("\n");
}

void failNear(Context& ctx, const char* file, int line, const char* what, double actual,
              double expected, double tolerance) {
  fail(ctx, file, line, what);
  print("    actual ");
  printDouble(actual);
  print(", expected ");
  printDouble(expected);
  print(", tolerance ");
  printDouble(tolerance);
  print("\n");
}

int runAll(const char* suiteName) {
  print("[minitest] suite ");
  print(suiteName);
  print(" on ");
  print(hal::platformName());
  print("\n");
  int passed = 0;
  int failed = 0;
  for (Registration* test = g_first; test != nullptr; test = test->next) {
    Context ctx{test->name, 0};
    test->function(ctx);
    print(ctx.failures == 0 ? "[ PASS ] " : "[ FAIL ] ");
    print(test->name);
    print("\n");
    if (ctx.failures == 0) ++passed; else ++failed;
  }
  printInt(passed);
  print(" passed, ");
  printInt(failed);
  print(" failed\n");
  return failed;
}

}  // namespace minitest
