// The 1D friction experiment of paper [P] Sect. 2.4 ("Comparison of proposed tangential contact
// model and LuGre model", Figs. 6-7), after Canudas de Wit et al. 1995 (paper [P] ref. [24]).
// A mass M = 1 kg on a rough support is pulled by a spring K = 2 N/m whose end moves at
// V = 0.1 m/s; friction limit F_c = 1 N. Two friction models, 20 s each:
//
//  * the bristle model of this project (bristle_friction.hpp; mu = 1 with |f_n| = 1 N,
//    mu_k = 1e5 N/m, mu_v = 10^2.5 N s/m, no wrapping). Time integration as in the plant
//    (docs/model_drive_and_solver.md §7): trapezoidal rule (Newmark beta = 1/4, gamma = 1/2) for M a + f_t(x, v) = K (V t - x),
//    Newton on a_{n+1} with the friction state frozen (newtonTangentialForce), then the PNS
//    (pnsTangential); the step is re-solved while e_PNS > 1e-3 N, at most 5 PNS per step (docs/model_drive_and_solver.md §7.7).
//  * LuGre: dz/dt = v - sigma0 |v| z / g(v), g(v) = F_c + (F_s - F_c) exp(-(v / v_s)^2),
//    F = sigma0 z + sigma1 dz/dt + sigma2 v, sigma0 = 1e5, sigma1 = 10^2.5, sigma2 = 0, F_s = 1.5 N,
//    v_s = 1e-3 m/s; the stiff ODE (x, v, z) integrated by the trapezoidal rule with h = 1e-5 s and a
//    full Newton with the analytic 3x3 Jacobian (halving or doubling h changes the reported
//    breakaway level and period by < 1e-5 relative).
//
// Analytic reference for the bristle model (Coulomb friction with F_s = F_c): stick until the
// spring force reaches 1 N at t = F_c / (K V) = 5 s (plus the bristle deflection 1e-5 m, 1e-4 s);
// then slip with x' = V (1 - cos(w (t - 5))), w = sqrt(K / M): the velocity returns to 0 (with the
// spring at exactly 1 N) every 2 pi / w = 4.443 s, i.e. the stick phases after the first one shrink
// to instants. LuGre, with F_s > F_c, has genuine stick phases. The curves go to CSV files and a
// PNG plot in $BELTSIM_CONTACT_1D_DIR (set by tests/contact/host.cmake) or the working directory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "beltsim/contact/bristle_friction.hpp"

namespace {

constexpr double kMass = 1.0, kSpring = 2.0, kPullSpeed = 0.1, kCoulomb = 1.0, kDuration = 20.0;
constexpr double kPnsTolerance = 1e-3;  // N (docs/model_start_and_benchmark.md §9.4)
constexpr int kPnsMaxIterations = 5;
const double kAnalyticPeriod = 2.0 * 3.14159265358979323846 / std::sqrt(kSpring / kMass);

struct Sample {
  double t, x, v, force;
};

struct BristleRun {
  std::vector<Sample> curve;  // every 1 ms
  std::vector<Sample> zoom;   // every step, 4.9..5.15 s
  double maxForce = 0.0;      // max |f_t| over all accepted steps
  double breakawayTime = -1.0;
  double breakawayForce = 0.0;  // largest |f_t| up to the first stick -> slip switch
  int stickToSlip = 0;
  int capHits = 0;  // steps accepted with e_PNS > tolerance after 5 PNS
  int pnsResolves = 0;
  std::vector<double> velocityMinima;  // local minima of v below 1e-3 m/s, > 0.1 s after the breakaway
  double maxVelocity = 0.0;
};

BristleRun simulateBristle() {
  BristleRun run;
  beltsim::FrictionParameters p;
  p.frictionCoefficient = 1.0;
  p.bristleStiffness = 1e5;
  p.velocityPenalty = std::pow(10.0, 2.5);
  const double normalForce = -1.0;  // LHS compression (docs/model_contact.md §4.4): mu |f_n| = 1 N = F_c
  const double h = 1e-4;
  const int steps = static_cast<int>(std::lround(kDuration / h));
  beltsim::SegmentHistory current;  // gap <= 0: in contact all the time; state undefined at start
  current.gap = -1.0;
  double x = 0.0, v = 0.0, a = 0.0;
  double stickPeak = 0.0;
  double vPrev2 = 0.0, vPrev1 = 0.0;
  run.curve.push_back({0.0, 0.0, 0.0, 0.0});
  for (int k = 1; k <= steps; ++k) {
    const double t = k * h;
    const beltsim::SegmentHistory startOfStep = current;
    double aNew = a, xNew = x, vNew = v, force = 0.0;
    for (int pns = 1; pns <= kPnsMaxIterations; ++pns) {
      // Newton on the residual R(a1) = M a1 + f_t(x1, v1) - K (V t - x1), state frozen.
      const auto residual = [&](double a1, double& f) {
        const double x1 = x + h * v + 0.25 * h * h * (a + a1);
        const double v1 = v + 0.5 * h * (a + a1);
        f = beltsim::newtonTangentialForce(p, current, normalForce, v1, x1, 0.0);
        return kMass * a1 + f - kSpring * (kPullSpeed * t - x1);
      };
      for (int it = 0; it < 20; ++it) {
        double f0, fp, fm;
        const double r = residual(aNew, f0);
        const double da = 1e-3 * (1.0 + std::fabs(aNew));  // the frozen law is affine: exact slope
        const double slope = (residual(aNew + da, fp) - residual(aNew - da, fm)) / (2.0 * da);
        const double step = -r / slope;
        aNew += step;
        if (std::fabs(step) <= 1e-14 * (1.0 + std::fabs(aNew))) break;
      }
      xNew = x + h * v + 0.25 * h * h * (a + aNew);
      vNew = v + 0.5 * h * (a + aNew);
      force = beltsim::newtonTangentialForce(p, current, normalForce, vNew, xNew, 0.0);
      const beltsim::TangentialPnsResult r =
          beltsim::pnsTangential(p, current, startOfStep, normalForce, vNew, xNew, 0.0);
      current.state = r.state;
      current.stickingPosition = r.stickingPosition;
      if (r.error <= kPnsTolerance) break;
      if (pns == kPnsMaxIterations) ++run.capHits;
      else ++run.pnsResolves;
    }
    const bool wasStick = startOfStep.state == beltsim::StickSlip::kStick;
    const bool isSlip = beltsim::isSlipping(current.state);
    // Up to and including the step of the first switch (whose accepted solution still used the
    // stick law when e_PNS <= tolerance), the largest friction force is the breakaway level.
    if (run.breakawayTime < 0) stickPeak = std::fmax(stickPeak, std::fabs(force));
    if (wasStick && isSlip) {
      ++run.stickToSlip;
      if (run.breakawayTime < 0) {
        run.breakawayTime = t;
        run.breakawayForce = stickPeak;
      }
    }
    x = xNew;
    v = vNew;
    a = aNew;
    run.maxForce = std::fmax(run.maxForce, std::fabs(force));
    run.maxVelocity = std::fmax(run.maxVelocity, v);
    if (run.breakawayTime > 0 && t - h > run.breakawayTime + 0.1 && vPrev1 < vPrev2 && vPrev1 <= v && vPrev1 < 1e-3)
      run.velocityMinima.push_back(t - h);
    vPrev2 = vPrev1;
    vPrev1 = v;
    if (k % 10 == 0) run.curve.push_back({t, x, v, force});
    if (t >= 4.9 && t <= 5.15) run.zoom.push_back({t, x, v, force});
  }
  return run;
}

struct LugreRun {
  std::vector<Sample> curve;  // every 1 ms
  std::vector<Sample> zoom;   // every 1e-4 s around the first breakaway
  std::vector<double> onsetTimes;     // slip onsets: v rises above 1e-3 m/s from below 1e-4 m/s
  std::vector<double> breakawayForces;  // largest friction force in the stick phase before each onset
  double maxForce = 0.0;
  int maxNewtonIterations = 0;
};

struct LugreParameters {
  double sigma0 = 1e5, sigma1 = std::pow(10.0, 2.5), sigma2 = 0.0, fc = kCoulomb, fs = 1.5, vs = 1e-3;
};

// Right-hand side of y = (x, v, z), the friction force, and the Jacobian d f / d y.
void lugreRhs(const LugreParameters& c, double t, const double* y, double* f, double& force, double (*jac)[3]) {
  const double v = y[1], z = y[2];
  const double e = std::exp(-(v / c.vs) * (v / c.vs));
  const double g = c.fc + (c.fs - c.fc) * e;
  const double dg = (c.fs - c.fc) * e * (-2.0 * v / (c.vs * c.vs));
  const double av = std::fabs(v), sv = v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
  const double zDot = v - c.sigma0 * av * z / g;
  force = c.sigma0 * z + c.sigma1 * zDot + c.sigma2 * v;
  f[0] = v;
  f[1] = (kSpring * (kPullSpeed * t - y[0]) - force) / kMass;
  f[2] = zDot;
  const double dzDot_dv = 1.0 - c.sigma0 * z * (sv * g - av * dg) / (g * g);
  const double dzDot_dz = -c.sigma0 * av / g;
  const double dF_dv = c.sigma1 * dzDot_dv + c.sigma2;
  const double dF_dz = c.sigma0 + c.sigma1 * dzDot_dz;
  jac[0][0] = 0.0, jac[0][1] = 1.0, jac[0][2] = 0.0;
  jac[1][0] = -kSpring / kMass, jac[1][1] = -dF_dv / kMass, jac[1][2] = -dF_dz / kMass;
  jac[2][0] = 0.0, jac[2][1] = dzDot_dv, jac[2][2] = dzDot_dz;
}

// Solves A x = b (3x3) by Gaussian elimination with partial pivoting; b is overwritten by x.
void solve3(double (*A)[3], double* b) {
  for (int c = 0; c < 3; ++c) {
    int pivot = c;
    for (int r = c + 1; r < 3; ++r)
      if (std::fabs(A[r][c]) > std::fabs(A[pivot][c])) pivot = r;
    if (pivot != c) {
      for (int k = 0; k < 3; ++k) std::swap(A[c][k], A[pivot][k]);
      std::swap(b[c], b[pivot]);
    }
    for (int r = c + 1; r < 3; ++r) {
      const double m = A[r][c] / A[c][c];
      for (int k = c; k < 3; ++k) A[r][k] -= m * A[c][k];
      b[r] -= m * b[c];
    }
  }
  for (int c = 2; c >= 0; --c) {
    double s = b[c];
    for (int k = c + 1; k < 3; ++k) s -= A[c][k] * b[k];
    b[c] = s / A[c][c];
  }
}

LugreRun simulateLugre(double h) {
  LugreRun run;
  const LugreParameters c;
  const int steps = static_cast<int>(std::lround(kDuration / h));
  const int every = static_cast<int>(std::lround(1e-3 / h));
  const int zoomEvery = std::max(1, static_cast<int>(std::lround(1e-4 / h)));
  double y[3] = {0.0, 0.0, 0.0}, f0[3], jac[3][3], force = 0.0;
  lugreRhs(c, 0.0, y, f0, force, jac);
  bool slipping = false;
  double stickPeak = 0.0;
  run.curve.push_back({0.0, 0.0, 0.0, 0.0});
  std::vector<Sample> recent;  // the last 0.2 s at zoom resolution, for the zoom around the first onset
  for (int k = 1; k <= steps; ++k) {
    const double t = k * h;
    double y1[3] = {y[0] + h * f0[0], y[1] + h * f0[1], y[2] + h * f0[2]}, f1[3];
    int it = 0;
    for (; it < 30; ++it) {
      lugreRhs(c, t, y1, f1, force, jac);
      double r[3], A[3][3];
      for (int i = 0; i < 3; ++i) {
        r[i] = -(y1[i] - y[i] - 0.5 * h * (f0[i] + f1[i]));
        for (int j = 0; j < 3; ++j) A[i][j] = (i == j ? 1.0 : 0.0) - 0.5 * h * jac[i][j];
      }
      solve3(A, r);
      double change = 0.0;
      for (int i = 0; i < 3; ++i) {
        y1[i] += r[i];
        change = std::fmax(change, std::fabs(r[i]) / (1e-3 + std::fabs(y1[i])));
      }
      if (change < 1e-13) break;
    }
    lugreRhs(c, t, y1, f1, force, jac);
    run.maxNewtonIterations = std::max(run.maxNewtonIterations, it + 1);
    for (int i = 0; i < 3; ++i) {
      y[i] = y1[i];
      f0[i] = f1[i];
    }
    run.maxForce = std::fmax(run.maxForce, std::fabs(force));
    if (!slipping) stickPeak = std::fmax(stickPeak, force);
    if (!slipping && y[1] > 1e-3) {
      slipping = true;
      run.onsetTimes.push_back(t);
      run.breakawayForces.push_back(stickPeak);
    } else if (slipping && y[1] < 1e-4) {
      slipping = false;
      stickPeak = 0.0;
    }
    if (k % every == 0) run.curve.push_back({t, y[0], y[1], force});
    if (k % zoomEvery == 0) {
      if (run.onsetTimes.empty()) {
        recent.push_back({t, y[0], y[1], force});
        if (recent.size() > 2000) recent.erase(recent.begin(), recent.begin() + 1000);
      } else if (t <= run.onsetTimes[0] + 0.1) {
        if (run.zoom.empty()) run.zoom = recent;
        run.zoom.push_back({t, y[0], y[1], force});
      }
    }
  }
  return run;
}

const BristleRun& bristle() {
  static const BristleRun run = simulateBristle();
  return run;
}
const LugreRun& lugre() {
  static const LugreRun run = simulateLugre(1e-5);
  return run;
}

double meanSpacing(const std::vector<double>& times) {
  if (times.size() < 2) return 0.0;
  return (times.back() - times.front()) / static_cast<double>(times.size() - 1);
}

// ---- a minimal PNG writer (stored deflate blocks) and line-plot raster ----------------------------

std::uint32_t crc32(const unsigned char* data, std::size_t n, std::uint32_t crc = 0xffffffffu) {
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return crc;
}

void putBig32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<unsigned char>(v >> s));
}

void chunk(std::vector<unsigned char>& png, const char* type, const std::vector<unsigned char>& data) {
  putBig32(png, static_cast<std::uint32_t>(data.size()));
  std::vector<unsigned char> body(type, type + 4);
  body.insert(body.end(), data.begin(), data.end());
  png.insert(png.end(), body.begin(), body.end());
  putBig32(png, crc32(body.data(), body.size()) ^ 0xffffffffu);
}

struct Raster {
  int width, height;
  std::vector<unsigned char> rgb;
  Raster(int w, int h) : width(w), height(h), rgb(static_cast<std::size_t>(w) * h * 3, 255) {}
  void set(int x, int y, const unsigned char* c) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    unsigned char* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
  }
  void line(double x0, double y0, double x1, double y1, const unsigned char* c) {
    const int n = static_cast<int>(std::fmax(std::fabs(x1 - x0), std::fabs(y1 - y0))) + 1;
    for (int i = 0; i <= n; ++i) {
      const double s = static_cast<double>(i) / n;
      set(static_cast<int>(std::lround(x0 + s * (x1 - x0))), static_cast<int>(std::lround(y0 + s * (y1 - y0))), c);
    }
  }
  bool writePng(const std::string& path) const {
    std::vector<unsigned char> raw;
    raw.reserve(static_cast<std::size_t>(height) * (width * 3 + 1));
    for (int y = 0; y < height; ++y) {
      raw.push_back(0);  // filter: none
      raw.insert(raw.end(), rgb.begin() + static_cast<std::ptrdiff_t>(y) * width * 3,
                 rgb.begin() + static_cast<std::ptrdiff_t>(y + 1) * width * 3);
    }
    std::vector<unsigned char> z = {0x78, 0x01};  // zlib header, no compression
    std::uint32_t s1 = 1, s2 = 0;                 // Adler-32
    for (unsigned char b : raw) {
      s1 = (s1 + b) % 65521u;
      s2 = (s2 + s1) % 65521u;
    }
    for (std::size_t pos = 0; pos < raw.size() || pos == 0;) {
      const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
      const bool last = pos + len == raw.size();
      z.push_back(last ? 1 : 0);
      z.push_back(static_cast<unsigned char>(len & 0xff));
      z.push_back(static_cast<unsigned char>(len >> 8));
      z.push_back(static_cast<unsigned char>(~len & 0xff));
      z.push_back(static_cast<unsigned char>((~len >> 8) & 0xff));
      z.insert(z.end(), raw.begin() + static_cast<std::ptrdiff_t>(pos), raw.begin() + static_cast<std::ptrdiff_t>(pos + len));
      pos += len;
      if (last) break;
    }
    putBig32(z, (s2 << 16) | s1);
    std::vector<unsigned char> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<unsigned char> ihdr;
    putBig32(ihdr, static_cast<std::uint32_t>(width));
    putBig32(ihdr, static_cast<std::uint32_t>(height));
    ihdr.insert(ihdr.end(), {8, 2, 0, 0, 0});  // 8 bit, RGB
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", z);
    chunk(png, "IEND", {});
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
    return static_cast<bool>(file);
  }
};

// 5x7 glyphs (upper case, digits, a little punctuation); each row's 5 low bits, MSB left.
struct Glyph {
  char c;
  unsigned char rows[7];
};
const Glyph kFont[] = {
    {'A', {14, 17, 17, 31, 17, 17, 17}}, {'B', {30, 17, 17, 30, 17, 17, 30}}, {'C', {14, 17, 16, 16, 16, 17, 14}},
    {'D', {30, 17, 17, 17, 17, 17, 30}}, {'E', {31, 16, 16, 30, 16, 16, 31}}, {'F', {31, 16, 16, 30, 16, 16, 16}},
    {'G', {14, 17, 16, 23, 17, 17, 15}}, {'H', {17, 17, 17, 31, 17, 17, 17}}, {'I', {14, 4, 4, 4, 4, 4, 14}},
    {'K', {17, 18, 20, 24, 20, 18, 17}}, {'L', {16, 16, 16, 16, 16, 16, 31}}, {'M', {17, 27, 21, 21, 17, 17, 17}},
    {'N', {17, 17, 25, 21, 19, 17, 17}}, {'O', {14, 17, 17, 17, 17, 17, 14}}, {'P', {30, 17, 17, 30, 16, 16, 16}},
    {'R', {30, 17, 17, 30, 20, 18, 17}}, {'S', {15, 16, 16, 14, 1, 1, 30}}, {'T', {31, 4, 4, 4, 4, 4, 4}},
    {'U', {17, 17, 17, 17, 17, 17, 14}}, {'V', {17, 17, 17, 17, 17, 10, 4}}, {'W', {17, 17, 17, 21, 21, 21, 10}},
    {'X', {17, 17, 10, 4, 10, 17, 17}}, {'Y', {17, 17, 10, 4, 4, 4, 4}}, {'Z', {31, 1, 2, 4, 8, 16, 31}},
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}}, {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {31, 2, 4, 2, 1, 17, 14}}, {'4', {2, 6, 10, 18, 31, 2, 2}}, {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}}, {'7', {31, 1, 2, 4, 8, 8, 8}}, {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}}, {'.', {0, 0, 0, 0, 0, 12, 12}}, {'-', {0, 0, 0, 31, 0, 0, 0}},
    {'[', {14, 8, 8, 8, 8, 8, 14}}, {']', {14, 2, 2, 2, 2, 2, 14}}, {'/', {0, 1, 2, 4, 8, 16, 0}},
    {'(', {2, 4, 8, 8, 8, 4, 2}}, {')', {8, 4, 2, 2, 2, 4, 8}}, {',', {0, 0, 0, 0, 12, 4, 8}},
    {'=', {0, 0, 31, 0, 31, 0, 0}}, {':', {0, 12, 12, 0, 12, 12, 0}}, {'+', {0, 4, 4, 31, 4, 4, 0}},
};

void text(Raster& r, int x, int y, const std::string& s, const unsigned char* c, int scale = 2) {
  for (char ch : s) {
    for (const Glyph& g : kFont) {
      if (g.c != ch) continue;
      for (int row = 0; row < 7; ++row)
        for (int col = 0; col < 5; ++col)
          if (g.rows[row] & (16 >> col))
            for (int a = 0; a < scale; ++a)
              for (int b = 0; b < scale; ++b) r.set(x + col * scale + a, y + row * scale + b, c);
    }
    x += 6 * scale;
  }
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", std::fabs(v) < 1e-12 ? 0.0 : v);
  return buffer;
}

const unsigned char kBlack[3] = {0, 0, 0}, kGrey[3] = {215, 215, 215};
const unsigned char kBlue[3] = {20, 60, 200}, kRed[3] = {210, 30, 30};

// One panel: frame at (left, top, w, h), data ranges, ticks, title; then curves.
struct Panel {
  int left, top, w, h;
  double x0, x1, y0, y1;
  double px(double x) const { return left + (x - x0) / (x1 - x0) * w; }
  double py(double y) const { return top + h - (y - y0) / (y1 - y0) * h; }
  void axes(Raster& r, const std::string& title, const std::string& xlabel, double xStep, double yStep) const {
    for (double y = std::ceil(y0 / yStep) * yStep; y <= y1 + 1e-12; y += yStep) {
      r.line(left, py(y), left + w, py(y), kGrey);
      text(r, left - 70, static_cast<int>(py(y)) - 7, number(y), kBlack);
    }
    for (double x = std::ceil(x0 / xStep) * xStep; x <= x1 + 1e-12; x += xStep) {
      r.line(px(x), top, px(x), top + h, kGrey);
      text(r, static_cast<int>(px(x)) - 12, top + h + 6, number(x), kBlack);
    }
    r.line(left, top, left + w, top, kBlack);
    r.line(left, top + h, left + w, top + h, kBlack);
    r.line(left, top, left, top + h, kBlack);
    r.line(left + w, top, left + w, top + h, kBlack);
    text(r, left, top - 20, title, kBlack);
    text(r, left + w - 12 * static_cast<int>(xlabel.size()), top + h + 24, xlabel, kBlack);
  }
  void curve(Raster& r, const std::vector<Sample>& s, double Sample::*field, double tShift, const unsigned char* c) const {
    for (std::size_t i = 1; i < s.size(); ++i) {
      const double xa = s[i - 1].t - tShift, xb = s[i].t - tShift;
      if (xa < x0 || xb > x1) continue;
      const double ya = std::fmin(std::fmax(s[i - 1].*field, y0), y1), yb = std::fmin(std::fmax(s[i].*field, y0), y1);
      r.line(px(xa), py(ya), px(xb), py(yb), c);
    }
  }
};

std::filesystem::path outputDirectory() {
  const char* dir = std::getenv("BELTSIM_CONTACT_1D_DIR");
  std::filesystem::path path = dir != nullptr && *dir != '\0' ? std::filesystem::path(dir) : std::filesystem::current_path();
  std::filesystem::create_directories(path);
  return path;
}

}  // namespace

// Seed 000 eq. (21) with the PNS of docs/model_contact.md §4.7: the bristle model's friction force never exceeds
// mu |f_n| = F_c = 1 N by more than the PNS tolerance (1e-3 N), over the whole 20 s.
TEST(Contact1DFriction, BristleForceNeverExceedsCoulombLimitBeyondPnsTolerance) {
  const BristleRun& run = bristle();
  EXPECT_LE(run.maxForce, kCoulomb + kPnsTolerance);
  EXPECT_EQ(run.capHits, 0);  // every step's PNS loop converged within 5 iterations
  std::printf("bristle: max |F| = %.12f N (excess %.3g N), PNS re-solves %d, cap hits %d\n", run.maxForce,
              run.maxForce - kCoulomb, run.pnsResolves, run.capHits);
}

// Stick, then breakaway at F_c = 1 N: the first stick -> slip switch happens when the spring force
// reaches 1 N, at t = F_c / (K V) + mu_k-deflection / V = 5.0001 s (Coulomb: 5 s).
TEST(Contact1DFriction, BristleSticksThenBreaksAwayAtCoulombLimit) {
  const BristleRun& run = bristle();
  EXPECT_GE(run.stickToSlip, 1);
  EXPECT_NEAR(run.breakawayForce, kCoulomb, kPnsTolerance);
  EXPECT_NEAR(run.breakawayTime, kCoulomb / (kSpring * kPullSpeed), 2e-3);
  std::printf("bristle: breakaway at t = %.4f s at %.9f N\n", run.breakawayTime, run.breakawayForce);
}

// After the breakaway the motion is the Coulomb stick-slip cycle with F_s = F_c: the velocity
// returns to 0 every 2 pi / sqrt(K / M) = 4.443 s (three times in 5..20 s) and peaks at 2 V.
TEST(Contact1DFriction, BristleSlipCycleHasSpringMassPeriodAndPeakVelocityTwiceThePullSpeed) {
  const BristleRun& run = bristle();
  ASSERT_EQ(run.velocityMinima.size(), 3u);
  const double period = meanSpacing(run.velocityMinima);
  EXPECT_NEAR(period, kAnalyticPeriod, 5e-3 * kAnalyticPeriod);
  EXPECT_NEAR(run.velocityMinima.front() - run.breakawayTime, kAnalyticPeriod, 5e-3 * kAnalyticPeriod);
  EXPECT_NEAR(run.maxVelocity, 2.0 * kPullSpeed, 1e-3);
  std::printf("bristle: velocity minima at");
  for (double t : run.velocityMinima) std::printf(" %.4f", t);
  std::printf(" s; period %.4f s (analytic %.4f s); max velocity %.5f m/s\n", period, kAnalyticPeriod, run.maxVelocity);
}

// LuGre (ref. [24]) with F_s = 1.5 N: genuine stick-slip; the breakaway force lies between F_c and
// F_s (the paper: it approaches F_s only as sigma0 grows) and is the same in every cycle.
TEST(Contact1DFriction, LugreShowsStickSlipWithBreakawayBetweenCoulombAndStictionLevels) {
  const LugreRun& run = lugre();
  ASSERT_GE(run.onsetTimes.size(), 2u);
  for (double f : run.breakawayForces) {
    EXPECT_GT(f, kCoulomb);
    EXPECT_LT(f, 1.5);
    EXPECT_NEAR(f, run.breakawayForces.front(), 1e-4);
  }
  const double period = meanSpacing(run.onsetTimes);
  EXPECT_GT(period, 1.0);
  std::printf("LuGre: breakaway %.6f N at t = %.5f s; onsets", run.breakawayForces.front(), run.onsetTimes.front());
  for (double t : run.onsetTimes) std::printf(" %.5f", t);
  std::printf(" s; stick-slip period %.5f s; max |F| %.6f N; max Newton iterations %d\n", period, run.maxForce,
              run.maxNewtonIterations);
}

// The LuGre figures do not depend on the step: h = 2e-5 s gives the same breakaway level and
// onset times to 1e-4 relative (a check of the stiff integrator, not of the model).
TEST(Contact1DFriction, LugreResultsAreConvergedInTheStepSize) {
  const LugreRun& fine = lugre();
  const LugreRun coarse = simulateLugre(2e-5);
  ASSERT_EQ(coarse.onsetTimes.size(), fine.onsetTimes.size());
  EXPECT_NEAR(coarse.breakawayForces.front(), fine.breakawayForces.front(), 1e-4 * fine.breakawayForces.front());
  for (std::size_t i = 0; i < fine.onsetTimes.size(); ++i)
    EXPECT_NEAR(coarse.onsetTimes[i], fine.onsetTimes[i], 1e-4 * fine.onsetTimes[i]);
}

// The curves (CSV) and a plot of position, velocity, friction force and the breakaway zoom (PNG,
// cf. paper [P] Figs. 6-7) are written for inspection.
TEST(Contact1DFriction, WritesCurvesAsCsvAndPlot) {
  const BristleRun& b = bristle();
  const LugreRun& l = lugre();
  const std::filesystem::path dir = outputDirectory();
  {
    std::ofstream csv(dir / "curves.csv");
    csv << "t_s,bristle_x_m,bristle_v_m_per_s,bristle_F_N,lugre_x_m,lugre_v_m_per_s,lugre_F_N\n";
    csv.precision(10);
    for (std::size_t i = 0; i < b.curve.size() && i < l.curve.size(); ++i)
      csv << b.curve[i].t << ',' << b.curve[i].x << ',' << b.curve[i].v << ',' << b.curve[i].force << ','
          << l.curve[i].x << ',' << l.curve[i].v << ',' << l.curve[i].force << '\n';
    ASSERT_TRUE(static_cast<bool>(csv));
  }
  const auto writeZoom = [&](const std::string& name, const std::vector<Sample>& s) {
    std::ofstream csv(dir / name);
    csv << "t_s,x_m,v_m_per_s,F_N\n";
    csv.precision(12);
    for (const Sample& e : s) csv << e.t << ',' << e.x << ',' << e.v << ',' << e.force << '\n';
    return static_cast<bool>(csv);
  };
  ASSERT_TRUE(writeZoom("bristle_breakaway_zoom.csv", b.zoom));
  ASSERT_TRUE(writeZoom("lugre_breakaway_zoom.csv", l.zoom));

  Raster r(1100, 1240);
  const int left = 110, w = 950, h = 220;
  const Panel position{left, 50, w, h, 0, kDuration, 0, 2.0};
  const Panel velocity{left, 340, w, h, 0, kDuration, -0.05, 0.5};
  const Panel force{left, 630, w, h, 0, kDuration, 0, 1.6};
  const Panel zoom{left, 920, w, h, -0.05, 0.1, 0.8, 1.6};
  position.axes(r, "POSITION X [M]", "T [S]", 2, 0.5);
  velocity.axes(r, "VELOCITY V [M/S]", "T [S]", 2, 0.1);
  force.axes(r, "FRICTION FORCE F [N]", "T [S]", 2, 0.2);
  zoom.axes(r, "FRICTION FORCE AT THE FIRST BREAKAWAY [N]", "T - T(BREAKAWAY) [S]", 0.025, 0.2);
  for (const Panel* p : {&position, &velocity, &force}) {
    const auto field = p == &position ? &Sample::x : (p == &velocity ? &Sample::v : &Sample::force);
    p->curve(r, l.curve, field, 0.0, kRed);
    p->curve(r, b.curve, field, 0.0, kBlue);
  }
  zoom.curve(r, l.zoom, &Sample::force, l.onsetTimes.empty() ? 0.0 : l.onsetTimes.front(), kRed);
  zoom.curve(r, b.zoom, &Sample::force, b.breakawayTime, kBlue);
  text(r, left + 560, 8, "BRISTLE MODEL", kBlue);
  text(r, left + 800, 8, "LUGRE", kRed);
  ASSERT_TRUE(r.writePng((dir / "contact_1d_friction.png").string()));
  std::printf("curves and plot written to %s\n", dir.string().c_str());
}
