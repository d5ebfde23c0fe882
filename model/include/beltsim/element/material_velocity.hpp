// The material velocity of an element whose mesh stands still while the belt's material flows
// through it at v (reference length per second; docs/model.md §2.10), as element rates.
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
  Matrix8 slopeMatrix() const {
    Matrix8 t = Matrix8::Zero();
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) {
        t(2 * j, 2 * k) = slopeMap_(j, k);
        t(2 * j + 1, 2 * k + 1) = slopeMap_(j, k);
      }
    return t;
  }

 private:
  Matrix4 slopeMap_ = Matrix4::Zero();
};

}  // namespace beltsim
