// The material velocity of an element whose mesh stands still while the belt's material flows
// through it at v (reference length per second; docs/model_element.md §2.10), as element rates.
//
// On one element r(x) = S(x) q is a cubic, so r'(x) is a quadratic, and cubic Hermite
// interpolation of its nodal values and slopes reproduces it exactly:
//   S(x) T q = r'(x)   for every x in [0, L],   T q = [r'(0), r''(0), r'(L), r''(L)]
// with the constant slope map T (8 x 8, the 4 x 4 part below (x) I2). The material velocity of
// every point of the element, u = r_dot + v r', is therefore the mesh velocity of the rates
//   q_dot_material = q_dot + v T q,
// and so are the material rates of the slope and curvature (S' T q = r'', S'' T q = r'''). Any
// law written on element rates (the element's strain-rate damping, the contact's normal damping
// and friction) acts on the material when given q_dot_material. For a force F(q, q_dot) of such
// a law, by the chain rule:
//   dF/dq |total = dF/dq + v dF/dq_dot T,   dF/dv = dF/dq_dot T q,
// and its generalized force on the transport coordinate (its virtual work when the material
// slides along its path by d sigma, the points moving by r' d sigma) is F^T T q.
#pragma once
#include <Eigen/Core>

#include "beltsim/core/status.hpp"
#include "beltsim/element/hermite_shape.hpp"

namespace beltsim {

class MaterialVelocity {
 public:
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  using Matrix4 = Eigen::Matrix<double, 4, 4>;

  // length: the element's reference length [m].
  ParameterError setUp(double length) {
    if (!isFinite(length) || !(length > 0.0)) return ParameterError::invalid("length");
    const HermiteShape<double> a = HermiteShape<double>::at(0.0, length);
    const HermiteShape<double> b = HermiteShape<double>::at(length, length);
    for (int k = 0; k < 4; ++k) {
      slopeMap_(0, k) = a.ds(k);   // r'(0)
      slopeMap_(1, k) = a.dds(k);  // r''(0)
      slopeMap_(2, k) = b.ds(k);   // r'(L)
      slopeMap_(3, k) = b.dds(k);  // r''(L)
    }
    buildNodalMaps(length);
    return ParameterError::success();
  }

  // The 4 x 4 part of T (rows: the nodal values r'(0), r''(0), r'(L), r''(L); columns: shape k).
  const Matrix4& slopeMap() const { return slopeMap_; }

  // T q: the element rates whose interpolation is r'(x).
  Vector8 slopeRates(const Vector8& q) const { return HermiteShape<double>::applyPerComponent(slopeMap_, q); }

  // q_dot + v T q.
  Vector8 materialRates(const Vector8& q, const Vector8& qDot, double v) const {
    return qDot + v * slopeRates(q);
  }

  // T as an 8 x 8 matrix.
  Matrix8 slopeMatrix() const { return expand(slopeMap_); }

  // The nodal shares T_A, T_B of T (T_A + T_B = T) for a material velocity that varies linearly
  // along the element (the eulerian belt, docs/model_element.md §2.11): S(x) T_a q = N_a(x) r'(x) with
  // N_A = 1 - x/L, N_B = x/L (a cubic: Hermite interpolation of its end values and slopes is exact).
  const Matrix4& nodalSlopeMap(int node) const { return nodalSlopeMap_[node]; }
  Matrix8 nodalSlopeMatrix(int node) const { return expand(nodalSlopeMap_[node]); }
  Vector8 nodalSlopeRates(int node, const Vector8& q) const {
    return HermiteShape<double>::applyPerComponent(nodalSlopeMap_[node], q);
  }

 private:
  void buildNodalMaps(double length) {
    // (N_a r')(0), (N_a r')'(0), (N_a r')(L), (N_a r')'(L) with N_A' = -1/L, N_B' = 1/L.
    for (int k = 0; k < 4; ++k) {
      nodalSlopeMap_[0](0, k) = slopeMap_(0, k);
      nodalSlopeMap_[0](1, k) = slopeMap_(1, k) - slopeMap_(0, k) / length;
      nodalSlopeMap_[0](2, k) = 0.0;
      nodalSlopeMap_[0](3, k) = -slopeMap_(2, k) / length;
      for (int r = 0; r < 4; ++r) nodalSlopeMap_[1](r, k) = slopeMap_(r, k) - nodalSlopeMap_[0](r, k);
    }
  }
  static Matrix8 expand(const Matrix4& m) {
    Matrix8 t = Matrix8::Zero();
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        t(2 * j, 2 * k) = m(j, k);
        t(2 * j + 1, 2 * k + 1) = m(j, k);
      }
    return t;
  }

  Matrix4 slopeMap_ = Matrix4::Zero();
  Matrix4 nodalSlopeMap_[2] = {Matrix4::Zero(), Matrix4::Zero()};
};

}  // namespace beltsim
