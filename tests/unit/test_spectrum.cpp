// gram_spectrum (`ppk gram --psd`) against matrices of known spectrum: Q diag(lambda) Q^T with a
// random orthogonal Q, and diagonal matrices for the tolerance rule.
#include <gtest/gtest.h>

#include <cfloat>
#include <limits>
#include <random>
#include <stdexcept>

#include <Eigen/Dense>

#include "ppk/core/spectrum.hpp"

namespace ppk {
namespace {

// Q diag(eigenvalues) Q^T, Q the orthogonal factor of a seeded Gaussian matrix.
Eigen::MatrixXd with_spectrum(const Eigen::VectorXd& eigenvalues, unsigned seed) {
  const Eigen::Index n = eigenvalues.size();
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd a(n, n);
  for (Eigen::Index k = 0; k < a.size(); ++k) a.data()[k] = normal(rng);
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(a).householderQ();
  const Eigen::MatrixXd m = q * eigenvalues.asDiagonal() * q.transpose();
  return (m + m.transpose()) / 2;  // exactly symmetric
}

TEST(GramSpectrum, SmallestLargestAndNegativeCountOfAKnownSpectrum) {
  Eigen::VectorXd eigenvalues(6);
  eigenvalues << 3, -2, 0.5, -1e-3, 1, 0.25;
  const GramSpectrum spectrum = gram_spectrum(with_spectrum(eigenvalues, 7));
  EXPECT_NEAR(spectrum.smallest, -2, 1e-13);
  EXPECT_NEAR(spectrum.largest, 3, 1e-13);
  EXPECT_EQ(spectrum.negative_count, 2);
  EXPECT_DOUBLE_EQ(spectrum.tolerance, 6 * DBL_EPSILON * 3);
}

TEST(GramSpectrum, PositiveDefiniteSpectrumHasNoNegativeEigenvalue) {
  Eigen::VectorXd eigenvalues(5);
  eigenvalues << 1e-6, 4, 2, 1e-3, 7;
  const GramSpectrum spectrum = gram_spectrum(with_spectrum(eigenvalues, 3));
  EXPECT_NEAR(spectrum.smallest, 1e-6, 1e-13);
  EXPECT_NEAR(spectrum.largest, 7, 1e-13);
  EXPECT_EQ(spectrum.negative_count, 0);
}

// Diagonal matrices: the eigenvalues are the diagonal exactly, so the rule is tested alone.
TEST(GramSpectrum, EigenvaluesWithinTheToleranceBelowZeroAreRounding) {
  const Eigen::MatrixXd gram = Eigen::Vector4d(3, 1, -1e-16, -1e-3).asDiagonal();
  const GramSpectrum by_default = gram_spectrum(gram);  // tolerance 4 eps 3 = 2.7e-15
  EXPECT_EQ(by_default.smallest, -1e-3);
  EXPECT_EQ(by_default.largest, 3);
  EXPECT_EQ(by_default.negative_count, 1);
  EXPECT_EQ(gram_spectrum(gram, 0).negative_count, 2);
  EXPECT_EQ(gram_spectrum(gram, 1e-2).negative_count, 0);
  EXPECT_EQ(gram_spectrum(gram, 1e-2).tolerance, 1e-2);
}

TEST(GramSpectrum, EmptyMatrixHasAnEmptySpectrum) {
  const GramSpectrum spectrum = gram_spectrum(Eigen::MatrixXd(0, 0));
  EXPECT_EQ(spectrum.negative_count, 0);
  EXPECT_EQ(spectrum.smallest, 0);
  EXPECT_EQ(spectrum.largest, 0);
}

TEST(GramSpectrum, RejectsNonSquareAndNonFiniteMatrices) {
  EXPECT_THROW(gram_spectrum(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Identity(2, 2);
  gram(1, 0) = gram(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(gram_spectrum(gram), std::invalid_argument);
}

}  // namespace
}  // namespace ppk
