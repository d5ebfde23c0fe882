// One element of the eulerian belt (docs/model_element.md §2.11) seen by a force that acts
// on its material: the element's kinematics with the material coordinates pA, pB of its two nodes,
// and the Newton block of such a force by the chain rule.
//
// With lambda = (pB - pA)/L, the mesh speed at node a is w_a = -pa_dot/lambda (mesh length per
// second) and the material rates are q_dot_m = q_dot + w_A T_A q + w_B T_B q (material_velocity.hpp).
// A force F(q, c, q_dot_m, c_dot) on the material (strain-rate damping, a contact pair with its
// circle c) has the generalized force F on the element's rows and -(1/lambda) F^T T_a q on pa's row
// (its virtual work when the material at node a slides by d pa). Its Newton block, given the
// partial derivatives Fq (q and c at fixed rates) and Fv (by the material rates and c_dot), is
//   c_q dF/dx|total + c_v dF/dx_dot|total
// with the total derivatives through q_dot_m: by q, + Fv (w_A T_A + w_B T_B); by pa (through
// lambda), Fv (sum_b pb_dot/lambda^2 T_b q) dlambda/dpa; by pa_dot, -(1/lambda) Fv T_a q.
#pragma once
#include <Eigen/Core>

#include "beltsim/element/material_velocity.hpp"

namespace beltsim {

// The state of element e of an eulerian mesh at one iteration point.
struct EulerianElementKinematics {
  using Vector2 = Eigen::Matrix<double, 2, 1>;
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  int e;                       // the element
  Vector8 q, v, rates;         // coordinates, mesh rates, material rates
  Vector2 p, pDot;             // its nodes' material coordinates [m of reference length] and rates
  double lambda;               // (pB - pA)/L
  double meshSpeed[2];         // w at its nodes, -p_dot/lambda [m/s of mesh length]
  Vector8 nodalSlopeRates[2];  // T_A q, T_B q

  // From the element's coordinates and rates, its nodes' material coordinates and rates, its mesh
  // length [m] and its slope maps.
  static EulerianElementKinematics at(int element, const Vector8& q, const Vector8& v, const Vector2& p,
                                   const Vector2& pDot, double length, const MaterialVelocity& material) {
    EulerianElementKinematics k;
    k.e = element;
    k.q = q;
    k.v = v;
    k.p = p;
    k.pDot = pDot;
    k.lambda = (p(1) - p(0)) / length;
    k.rates = v;
    for (int n = 0; n < 2; ++n) {
      k.meshSpeed[n] = -pDot(n) / k.lambda;
      k.nodalSlopeRates[n] = material.nodalSlopeRates(n, q);
      k.rates += k.meshSpeed[n] * k.nodalSlopeRates[n];
    }
    return k;
  }
};

// The Newton block m of a force on the material with C extra rows and unknowns c (a circle: C = 3;
// the element alone: C = 0), rows and columns in the order (q 8, c C, pA, pB). force: F (8 + C);
// fq, fv: its partial derivatives; cq, cv: the integrator's stiffness and damping factors;
// nodalSlope: T_A, T_B as 8 x 8 matrices; length: the element's mesh length [m]. bySpeed
// (optional): dF/dw_A, dF/dw_B of a force that also reads the mesh speeds themselves (the
// anchors a contact pair carries, carried_anchor.hpp), through w_a = -pa_dot/lambda.
template <int C>
void materialForceMatrix(const EulerianElementKinematics& k, const Eigen::Matrix<double, 8, 8> (&nodalSlope)[2],
                         double length, const Eigen::Matrix<double, 8 + C, 1>& force,
                         const Eigen::Matrix<double, 8 + C, 8 + C>& fq, const Eigen::Matrix<double, 8 + C, 8 + C>& fv,
                         double cq, double cv, Eigen::Matrix<double, 10 + C, 10 + C>& m,
                         const Eigen::Matrix<double, 8 + C, 2>* bySpeed = nullptr) {
  using Vector8 = Eigen::Matrix<double, 8, 1>;
  using Matrix8 = Eigen::Matrix<double, 8, 8>;
  constexpr int R = 8 + C;
  const double il = 1.0 / k.lambda;
  const double sign[2] = {-1.0 / length, 1.0 / length};  // d lambda / d p_a
  const Matrix8 w = k.meshSpeed[0] * nodalSlope[0] + k.meshSpeed[1] * nodalSlope[1];
  // d q_dot_m / d lambda = sum_a (pa_dot / lambda^2) T_a q.
  const Vector8 byLambda = (k.pDot(0) * k.nodalSlopeRates[0] + k.pDot(1) * k.nodalSlopeRates[1]) * (il * il);
  // Small fixed-size products: lazyProduct sums each entry in order, without Eigen's blocked kernels.
  Eigen::Matrix<double, R, 10 + C> byPosition, byRate;  // total derivatives of F
  byPosition.template leftCols<8>() = fq.template leftCols<8>() + fv.template leftCols<8>().lazyProduct(w);
  byRate.template leftCols<8>() = fv.template leftCols<8>();
  if constexpr (C > 0) {
    byPosition.template middleCols<C>(8) = fq.template rightCols<C>();
    byRate.template middleCols<C>(8) = fv.template rightCols<C>();
  }
  const Eigen::Matrix<double, R, 1> byStretch = fv.template leftCols<8>().lazyProduct(byLambda);
  for (int n = 0; n < 2; ++n) {
    byPosition.col(8 + C + n) = sign[n] * byStretch;
    byRate.col(8 + C + n) = -il * fv.template leftCols<8>().lazyProduct(k.nodalSlopeRates[n]);
  }
  if (bySpeed != nullptr) {
    // d w_b / d pa = pb_dot / lambda^2 d lambda / d pa;  d w_a / d pa_dot = -1 / lambda.
    const Eigen::Matrix<double, R, 1> byLambdaOfSpeeds =
        (k.pDot(0) * bySpeed->col(0) + k.pDot(1) * bySpeed->col(1)) * (il * il);
    for (int n = 0; n < 2; ++n) {
      byPosition.col(8 + C + n) += sign[n] * byLambdaOfSpeeds;
      byRate.col(8 + C + n) -= il * bySpeed->col(n);
    }
  }
  m.setZero();
  m.template topRows<R>() = cq * byPosition + cv * byRate;
  const Vector8 element = force.template head<8>();
  for (int a = 0; a < 2; ++a) {
    const Eigen::Matrix<double, 1, 8> tq = k.nodalSlopeRates[a].transpose();
    Eigen::Matrix<double, 1, 10 + C> rowPosition = -il * tq.lazyProduct(byPosition.template topRows<8>());
    rowPosition.template head<8>() -= il * element.transpose().lazyProduct(nodalSlope[a]);
    const double g = element.dot(k.nodalSlopeRates[a]) * il * il;
    for (int n = 0; n < 2; ++n) rowPosition(8 + C + n) += sign[n] * g;
    const Eigen::Matrix<double, 1, 10 + C> rowRate = -il * tq.lazyProduct(byRate.template topRows<8>());
    m.row(R + a) = cq * rowPosition + cv * rowRate;
  }
}

}  // namespace beltsim
