// Quadrature rules on [-1, 1] and the axial rules (the paper's selective reduced integration schemes a, b, c) of the ANCF cable
// element (docs/model_element.md §2.6, paper [P] Table 1).
//
// A rule integrates  int_{-1}^{1} h(zeta) dzeta  ~  sum_i w_i h(zeta_i).  On an element of length L
// the point zeta maps to x = L/2 (zeta + 1) and the weight to L/2 w.
//
// The values are compile-time double literals, so every target uses the same bits (no sqrt at run
// time, no libm). GL2, GL3, GL4 and LO3 are the doubles nearest to the exact values quoted in the
// comments. GL5 uses the reference implementation's literals verbatim: its points are the nearest
// doubles, but its two outer weights differ from the nearest doubles by about 1e-16 (exact: (322 +- 13 sqrt 70) / 900).
// Points are listed in ascending order; sums over them run in that order.
#pragma once
#include <cstdint>

namespace beltsim {

template <int N>
struct QuadratureRule {
  static constexpr int kPoints = N;
  double points[N];   // zeta_i in [-1, 1]
  double weights[N];  // w_i, sum w_i = 2
};

// Gauss-Legendre, 2 points: +-sqrt(1/3), w = 1. Exact for degree 3.
inline constexpr QuadratureRule<2> kGaussLegendre2{
    {-0.57735026918962573, 0.57735026918962573},
    {1.0, 1.0}};

// Gauss-Legendre, 3 points: 0 (8/9), +-sqrt(3/5) (5/9). Exact for degree 5.
inline constexpr QuadratureRule<3> kGaussLegendre3{
    {-0.7745966692414834, 0.0, 0.7745966692414834},
    {0.55555555555555558, 0.88888888888888884, 0.55555555555555558}};

// Gauss-Legendre, 4 points: +-sqrt(3/7 - sqrt(120)/35) (1/2 + 5/(3 sqrt 120)),
// +-sqrt(3/7 + sqrt(120)/35) (1/2 - 5/(3 sqrt 120)). Exact for degree 7.
inline constexpr QuadratureRule<4> kGaussLegendre4{
    {-0.86113631159405257, -0.33998104358485626, 0.33998104358485626, 0.86113631159405257},
    {0.34785484513745385, 0.65214515486254609, 0.65214515486254609, 0.34785484513745385}};

// Gauss-Legendre, 5 points, literals of docs/model_element.md §2.6. Exact for degree 9.
inline constexpr QuadratureRule<5> kGaussLegendre5{
    {-0.906179845938664, -0.5384693101056831, 0.0, 0.5384693101056831, 0.906179845938664},
    {0.23692688505618914, 0.47862867049936636, 0.5688888888888889, 0.47862867049936636,
     0.23692688505618914}};

// Gauss-Lobatto, 3 points: -1, 0, 1 with weights 1/3, 4/3, 1/3 (Simpson). Exact for degree 3.
inline constexpr QuadratureRule<3> kLobatto3{
    {-1.0, 0.0, 1.0},
    {0.33333333333333333, 1.3333333333333333, 0.33333333333333333}};

// Rule pairs of the selective reduced integration (docs/model_element.md §2.6 / paper [P] Table 1): rule A for the
// axial term, rule B for the bending term. The numeric values are those of the reference's flag
// `useReducedOrderIntegration` (0, 1, 2).
enum class AxialRule : std::uint8_t {
  kA = 0,  // A: Gauss-Legendre 5, B: Gauss-Legendre 3
  kB = 1,  // A: Gauss-Legendre 4, B: Gauss-Legendre 2
  kC = 2,  // A: Lobatto 3,        B: Gauss-Legendre 2 (paper's choice, benchmark default)
};

inline constexpr AxialRule kDefaultAxialRule = AxialRule::kC;

// The largest point counts over all axial rules (sizes of fixed per-point caches).
inline constexpr int kMaxAxialPoints = 5;
inline constexpr int kMaxBendingPoints = 3;

constexpr bool isValidAxialRule(AxialRule rule) {
  return rule == AxialRule::kA || rule == AxialRule::kB ||
         rule == AxialRule::kC;
}

// Compile-time rule pair of a rule: SchemeRules<S>::axial() and ::bending().
template <AxialRule S>
struct SchemeRules;

template <>
struct SchemeRules<AxialRule::kA> {
  static constexpr const QuadratureRule<5>& axial() { return kGaussLegendre5; }
  static constexpr const QuadratureRule<3>& bending() { return kGaussLegendre3; }
};

template <>
struct SchemeRules<AxialRule::kB> {
  static constexpr const QuadratureRule<4>& axial() { return kGaussLegendre4; }
  static constexpr const QuadratureRule<2>& bending() { return kGaussLegendre2; }
};

template <>
struct SchemeRules<AxialRule::kC> {
  static constexpr const QuadratureRule<3>& axial() { return kLobatto3; }
  static constexpr const QuadratureRule<2>& bending() { return kGaussLegendre2; }
};

// Point counts of a rule chosen at run time (0 for an invalid value).
constexpr int axialPointCount(AxialRule rule) {
  return rule == AxialRule::kA   ? 5
         : rule == AxialRule::kB ? 4
         : rule == AxialRule::kC ? 3
                                           : 0;
}

constexpr int bendingPointCount(AxialRule rule) {
  return rule == AxialRule::kA   ? 3
         : rule == AxialRule::kB ? 2
         : rule == AxialRule::kC ? 2
                                           : 0;
}

}  // namespace beltsim
