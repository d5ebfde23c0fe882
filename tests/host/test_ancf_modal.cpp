// Modal validation of the planar ANCF cable element: mass matrix (docs/model_element.md §2.3) and stiffness
// (docs/model_element.md §2.8) of a straight cantilever give the Euler-Bernoulli bending frequencies.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <string>

#include "beltsim/element/ancf_cable2d.hpp"

namespace {

using Element = beltsim::AncfCable2D<double>;
using beltsim::AxialRule;
using beltsim::Status;
using Eigen::MatrixXd;

constexpr double kPi = 3.14159265358979323846;

}  // namespace

// First bending eigenfrequency of a clamped-free beam: f1 = (beta1 L)^2 / (2 pi) sqrt(EI / (rho A
// L^4)) with beta1 L = 1.8751 (Euler-Bernoulli). 8 elements, generalized eigenproblem K x = w^2 M x
// at the straight, stress-free state, clamp (4 coordinates of node 0) removed: within 1 %.
TEST(AncfModal, CantileverFirstBendingFrequencyMatchesBeamTheory) {
  const AxialRule rules[3] = {AxialRule::kA, AxialRule::kB,
                                        AxialRule::kC};
  const char* names[3] = {"a", "b", "c"};
  const int elements = 8;
  const double totalLength = 1.0, rhoA = 2.7, EA = 2.0e5, EI = 3.0;
  const double expected =
      1.8751 * 1.8751 / (2.0 * kPi) * std::sqrt(EI / (rhoA * std::pow(totalLength, 4)));
  for (int s = 0; s < 3; ++s) {
    Element::Parameters p;
    p.length = totalLength / elements;
    p.massPerLength = rhoA;
    p.EA = EA;
    p.EI = EI;
    p.axialRule = rules[s];
    Element element;
    ASSERT_TRUE(element.setUp(p).ok());
    const int n = 4 * (elements + 1);
    MatrixXd mass = MatrixXd::Zero(n, n), stiffness = MatrixXd::Zero(n, n);
    for (int e = 0; e < elements; ++e) {
      Element::Vector8 qe;
      qe << e * p.length, 0.0, 1.0, 0.0, (e + 1) * p.length, 0.0, 1.0, 0.0;
      Element::Vector8 force;
      Element::Matrix8 ke, de;
      ASSERT_EQ(element.internalForceAndJacobian(qe, Element::Vector8::Zero(), force, ke, de),
                Status::kOk);
      mass.block<8, 8>(4 * e, 4 * e) += element.massMatrix();
      stiffness.block<8, 8>(4 * e, 4 * e) += ke;
    }
    const MatrixXd mf = mass.bottomRightCorner(n - 4, n - 4);
    const MatrixXd kf = stiffness.bottomRightCorner(n - 4, n - 4);
    Eigen::GeneralizedSelfAdjointEigenSolver<MatrixXd> solver(kf, mf);
    ASSERT_EQ(solver.info(), Eigen::Success);
    const double lowest = solver.eigenvalues()(0);  // ascending
    ASSERT_GT(lowest, 0.0);
    const double f1 = std::sqrt(lowest) / (2.0 * kPi);
    // The lowest mode must be a bending (transverse) mode: its y components dominate.
    const Eigen::VectorXd mode = solver.eigenvectors().col(0);
    double transverse = 0.0, axial = 0.0;
    for (int k = 0; k < elements; ++k) {
      axial += mode(4 * k) * mode(4 * k) + mode(4 * k + 2) * mode(4 * k + 2);
      transverse += mode(4 * k + 1) * mode(4 * k + 1) + mode(4 * k + 3) * mode(4 * k + 3);
    }
    const double error = (f1 - expected) / expected;
    std::printf("[figure] cantilever f1 rule %s: %.6f Hz, beam theory %.6f Hz, error %.4f %%\n",
                names[s], f1, expected, 100.0 * error);
    RecordProperty(std::string("f1_error_percent_") + names[s], std::to_string(100.0 * error));
    EXPECT_GT(transverse, 1e6 * axial);
    EXPECT_LT(std::abs(error), 0.01);
  }
}
