#include "ppk/core/spectrum.hpp"

#include <cfloat>
#include <stdexcept>
#include <string>

#include <Eigen/Eigenvalues>

namespace ppk {

double default_psd_tolerance(const Eigen::VectorXd& eigenvalues) {
  if (eigenvalues.size() == 0) return 0;
  return static_cast<double>(eigenvalues.size()) * DBL_EPSILON * eigenvalues.cwiseAbs().maxCoeff();
}

GramSpectrum gram_spectrum(const Eigen::MatrixXd& gram, double tolerance) {
  if (gram.rows() != gram.cols())
    throw std::invalid_argument("the spectrum needs a square matrix, got " + std::to_string(gram.rows()) + " x " +
                                std::to_string(gram.cols()));
  if (!gram.allFinite()) throw std::invalid_argument("the matrix has a non-finite entry");
  GramSpectrum spectrum;
  if (gram.size() == 0) return spectrum;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(gram, Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) throw std::invalid_argument("the eigensolver did not converge");
  const Eigen::VectorXd& eigenvalues = solver.eigenvalues();  // ascending
  spectrum.smallest = eigenvalues(0);
  spectrum.largest = eigenvalues(eigenvalues.size() - 1);
  spectrum.tolerance = tolerance < 0 ? default_psd_tolerance(eigenvalues) : tolerance;
  spectrum.negative_count = (eigenvalues.array() < -spectrum.tolerance).count();
  return spectrum;
}

}  // namespace ppk
