// Initial belt geometry (docs/model_start_and_benchmark.md §8.1) against closed forms: the paper's two equal pulleys, the
// open-belt length of two unequal pulleys, and a three-pulley drive.
#include <cmath>

#include "beltsim/system/belt_geometry.hpp"
#include "minitest.hpp"

using namespace beltsim;

namespace {
constexpr double kPi = 3.14159265358979323846;
}

MT_TEST(two_equal_pulleys_give_the_papers_closed_form_nodes) {
  // docs/model_start_and_benchmark.md §8.1 table: d = 0.1 pi, R = 0.1; l_b = 2d + 2 pi R = 0.4 pi; top span (s, R) slope
  // (1, 0); arc on P2 (d + R sin th, R cos th) slope (cos th, -sin th); bottom (d - u, -R).
  const double d = 0.1 * kPi, r = 0.1;
  const PathCircle circles[2] = {{Vector2(0, 0), r, 1}, {Vector2(d, 0), r, 1}};
  BeltPath<4> path;
  MT_EXPECT(buildBeltPath(circles, 2, path).ok());
  MT_EXPECT_NEAR(path.totalLength, 0.4 * kPi, 1e-14);
  constexpr int kElements = 40;
  Eigen::Matrix<double, 4 * kElements, 1> nodes;
  placeBeltNodes(path, kElements, nodes);
  const double length = path.totalLength / kElements;
  for (int k = 0; k < kElements; ++k) {
    const double s = k * length;
    double x, y, tx, ty;
    if (s < d - 1e-12) {
      x = s; y = r; tx = 1; ty = 0;
    } else if (s < d + kPi * r - 1e-12) {
      const double th = (s - d) / r;
      x = d + r * std::sin(th); y = r * std::cos(th); tx = std::cos(th); ty = -std::sin(th);
    } else if (s < 2 * d + kPi * r - 1e-12) {
      const double u = s - d - kPi * r;
      x = d - u; y = -r; tx = -1; ty = 0;
    } else {
      const double th = (s - 2 * d - kPi * r) / r;
      x = -r * std::sin(th); y = -r * std::cos(th); tx = -std::cos(th); ty = std::sin(th);
    }
    MT_EXPECT_NEAR(nodes(4 * k), x, 1e-13);
    MT_EXPECT_NEAR(nodes(4 * k + 1), y, 1e-13);
    MT_EXPECT_NEAR(nodes(4 * k + 2), tx, 1e-13);
    MT_EXPECT_NEAR(nodes(4 * k + 3), ty, 1e-13);
  }
}

MT_TEST(two_unequal_pulleys_give_the_open_belt_length) {
  // Open belt: L = 2 C cos(phi) + pi (R1 + R2) + 2 phi (R1 - R2), sin(phi) = (R1 - R2) / C
  // (R1 the larger pulley); Euler's classical formula for a belt over two pulleys.
  const double r1 = 0.15, r2 = 0.05, c = 0.5;
  const PathCircle circles[2] = {{Vector2(0, 0), r1, 1}, {Vector2(c, 0), r2, 1}};
  BeltPath<4> path;
  MT_EXPECT(buildBeltPath(circles, 2, path).ok());
  const double phi = std::asin((r1 - r2) / c);
  MT_EXPECT_NEAR(path.totalLength, 2 * c * std::cos(phi) + kPi * (r1 + r2) + 2 * phi * (r1 - r2), 1e-14);
  // Both spans are tangent: the distance of each centre to each span line equals its radius.
  for (int k = 0; k < 2; ++k) {
    const Vector2 t = (path.arrival[k] - path.departure[k]).normalized();
    for (int j = 0; j < 2; ++j) {
      const double dist = std::fabs(cross2(t, circles[j].centre - path.departure[k]));
      MT_EXPECT_NEAR(dist, circles[j].radius, 1e-14);
    }
  }
}

MT_TEST(three_equal_pulleys_wrap_the_triangle_perimeter_plus_one_circle) {
  // Equal radii on a convex triangle: spans parallel to the sides, arcs adding up to one turn.
  const double r = 0.05;
  const PathCircle circles[3] = {{Vector2(0, 0), r, 1}, {Vector2(0.4, 0.3), r, 1}, {Vector2(0.6, -0.1), r, 1}};
  BeltPath<4> path;
  MT_EXPECT(buildBeltPath(circles, 3, path).ok());
  const double perimeter = (circles[1].centre - circles[0].centre).norm() +
                           (circles[2].centre - circles[1].centre).norm() +
                           (circles[0].centre - circles[2].centre).norm();
  MT_EXPECT_NEAR(path.totalLength, perimeter + 2 * kPi * r, 1e-13);
  MT_EXPECT_NEAR(path.arcSweep[0] + path.arcSweep[1] + path.arcSweep[2], -2 * kPi, 1e-13);
}

MT_TEST(belt_path_rejects_bad_circles_by_name) {
  const PathCircle same[2] = {{Vector2(0, 0), 0.1, 1}, {Vector2(0, 0), 0.1, 1}};
  BeltPath<4> path;
  const ParameterError e = buildBeltPath(same, 2, path);
  MT_EXPECT(!e.ok() && e.parameter[0] == 'c');  // "centre"
  const PathCircle negative[2] = {{Vector2(0, 0), -0.1, 1}, {Vector2(1, 0), 0.1, 1}};
  MT_EXPECT(buildBeltPath(negative, 2, path).parameter[0] == 'r');  // "radius"
  MT_EXPECT(buildBeltPath(negative, 1, path).parameter[0] == 'p');  // "pulleyCount"
}
