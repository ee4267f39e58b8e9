// The spectrum of a Gram matrix: is it positive semidefinite, as every exact kernel's is?
#pragma once

#include <Eigen/Core>

namespace ppk {

struct GramSpectrum {
  double smallest = 0;      // the smallest eigenvalue
  double largest = 0;       // the largest eigenvalue
  double tolerance = 0;     // eigenvalues in [-tolerance, 0) count as rounding, not as negative
  long negative_count = 0;  // eigenvalues below -tolerance
};

// The tolerance a backward-stable symmetric eigensolver cannot resolve: each computed eigenvalue
// is exact for a matrix within n eps ||K||_2 of K (Golub & Van Loan, Matrix Computations, §8.1),
// so n * DBL_EPSILON * max |lambda| for an n x n matrix with eigenvalues lambda.
double default_psd_tolerance(const Eigen::VectorXd& eigenvalues);

// The eigenvalues of the symmetric `gram` (Eigen's SelfAdjointEigenSolver, which reads its lower
// triangle) summarised against `tolerance` (< 0: default_psd_tolerance). An empty matrix has
// neither a smallest nor a largest eigenvalue: both are reported as 0. Throws std::invalid_argument
// if `gram` is not square or has a non-finite entry.
GramSpectrum gram_spectrum(const Eigen::MatrixXd& gram, double tolerance = -1);

}  // namespace ppk
