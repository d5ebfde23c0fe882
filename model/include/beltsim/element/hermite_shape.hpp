// Cubic Hermite shape functions of the planar ANCF cable element (docs/model_element.md §2.2, paper [P] eq. 1).
// Node coordinates [r, r'] at both ends; xi = x / L in [0, 1].
//   S1 = 1 - 3xi^2 + 2xi^3,  S2 = L (xi - 2xi^2 + xi^3),  S3 = 3xi^2 - 2xi^3,  S4 = L (xi^3 - xi^2)
// The element vector is q = [rA_x, rA_y, r'A_x, r'A_y, rB_x, rB_y, r'B_x, r'B_y]; scalar shape
// function j multiplies the 2x2 identity in columns 2j, 2j+1.
#pragma once
#include <Eigen/Core>

namespace beltsim {

template <typename Scalar>
struct HermiteShape {
  using Vector4 = Eigen::Matrix<Scalar, 4, 1>;
  Vector4 s;    // S_j(x)
  Vector4 ds;   // dS_j/dx
  Vector4 dds;  // d2S_j/dx2

  // Shape functions and their x-derivatives at local position x in [0, L].
  static HermiteShape at(Scalar x, Scalar length) {
    const Scalar xi = x / length;
    const Scalar xi2 = xi * xi;
    const Scalar xi3 = xi2 * xi;
    HermiteShape h;
    h.s << Scalar(1) - Scalar(3) * xi2 + Scalar(2) * xi3, length * (xi - Scalar(2) * xi2 + xi3),
        Scalar(3) * xi2 - Scalar(2) * xi3, length * (xi3 - xi2);
    h.ds << Scalar(6) / length * (xi2 - xi), Scalar(1) - Scalar(4) * xi + Scalar(3) * xi2,
        Scalar(6) / length * (xi - xi2), Scalar(3) * xi2 - Scalar(2) * xi;
    h.dds << (Scalar(12) * xi - Scalar(6)) / (length * length), (Scalar(6) * xi - Scalar(4)) / length,
        (Scalar(6) - Scalar(12) * xi) / (length * length), (Scalar(6) * xi - Scalar(2)) / length;
    return h;
  }

  // The 2x8 interpolation matrix [S1 I, S2 I, S3 I, S4 I] for a row vector of shape values.
  static Eigen::Matrix<Scalar, 2, 8> expand(const Vector4& values) {
    Eigen::Matrix<Scalar, 2, 8> m = Eigen::Matrix<Scalar, 2, 8>::Zero();
    for (int j = 0; j < 4; ++j) {
      m(0, 2 * j) = values(j);
      m(1, 2 * j + 1) = values(j);
    }
    return m;
  }

  // Interpolates sum_j values_j * (q_{2j}, q_{2j+1}) without forming the 2x8 matrix. Each sum
  // starts at 0 and adds j = 0..3 in order (0 + (-0) is +0: the sign of a zero sum is the same as
  // a loop's), written out so that the compiler inlines it.
  static Eigen::Matrix<Scalar, 2, 1> interpolate(const Vector4& values,
                                                 const Eigen::Matrix<Scalar, 8, 1>& q) {
    const Scalar* v = values.data();
    const Scalar* x = q.data();
    Eigen::Matrix<Scalar, 2, 1> r;
    r(0) = Scalar(0) + v[0] * x[0] + v[1] * x[2] + v[2] * x[4] + v[3] * x[6];
    r(1) = Scalar(0) + v[0] * x[1] + v[1] * x[3] + v[2] * x[5] + v[3] * x[7];
    return r;
  }

  // (A (x) I2) x: a 4 x 4 matrix over the shape functions applied to both components of the
  // element vector (y_{2j+c} = sum_k A_jk x_{2k+c}).
  // Each sum starts at 0 and adds k = 0..3 in order, in two local accumulators per row.
  static Eigen::Matrix<Scalar, 8, 1> applyPerComponent(const Eigen::Matrix<Scalar, 4, 4>& a,
                                                       const Eigen::Matrix<Scalar, 8, 1>& x) {
    const Scalar* column = a.data();  // column-major: a(j, k) = column[j + 4 k]
    const Scalar* v = x.data();
    Eigen::Matrix<Scalar, 8, 1> y;
    for (int j = 0; j < 4; ++j) {
      Scalar first = Scalar(0), second = Scalar(0);
      for (int k = 0; k < 4; ++k) {
        first += column[j + 4 * k] * v[2 * k];
        second += column[j + 4 * k] * v[2 * k + 1];
      }
      y(2 * j) = first;
      y(2 * j + 1) = second;
    }
    return y;
  }
};

}  // namespace beltsim
