// The Gaussian likelihood's MI blocks (see mi.hpp): g_x(theta) = N(x | theta, Sigma) N(theta | m, V)^(1/2).
//
// N(theta | m, V)^(1/2) = (2 pi)^(-D/4) |V|^(-1/4) exp(-(theta - m)' V^-1 (theta - m) / 4)
//                       = c N(theta | m, 2V),   c = (2 pi)^(D/4) 2^(D/2) |V|^(1/4),
// and the product of two Gaussian densities in theta (completing the square):
//     N(x | theta, Sigma) N(theta | m, 2V) = N(x | m, Sigma + 2V) N(theta | mu_x, P),
//     P = (Sigma^-1 + (2V)^-1)^-1,   mu_x = P (Sigma^-1 x + (2V)^-1 m).
#include <cmath>
#include <optional>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "ppk/families/gaussian.hpp"
#include "ppk/families/mi.hpp"

namespace ppk {

namespace {

// v when `matrix` is v I, nothing otherwise.
std::optional<double> isotropic_variance(const Eigen::MatrixXd& matrix) {
  const double v = matrix(0, 0);
  if (matrix == v * Eigen::MatrixXd::Identity(matrix.rows(), matrix.cols())) return v;
  return std::nullopt;
}

// The Cholesky factor of the symmetric positive definite `matrix` (the argument `name`).
Eigen::LLT<Eigen::MatrixXd> positive_definite(const Eigen::MatrixXd& matrix, const char* name, long dim) {
  if (matrix.rows() != dim || matrix.cols() != dim)
    throw ModelError(std::string("MI gaussian block: ") + name + " must be " + std::to_string(dim) + " x " +
                     std::to_string(dim) + ", got " + std::to_string(matrix.rows()) + " x " +
                     std::to_string(matrix.cols()));
  Eigen::LLT<Eigen::MatrixXd> llt(matrix);
  if (!matrix.allFinite() || !matrix.isApprox(matrix.transpose()) || llt.info() != Eigen::Success)
    throw ModelError(std::string("MI gaussian block: ") + name + " must be a finite symmetric positive definite matrix");
  return llt;
}

}  // namespace

MiBlock gaussian_mi_block(const Eigen::VectorXd& x, const Eigen::MatrixXd& Sigma, const Eigen::VectorXd& m,
                          const Eigen::MatrixXd& V) {
  const long dim = x.size();
  if (dim < 1 || m.size() != dim)
    throw ModelError("MI gaussian block: the datum (dimension " + std::to_string(dim) +
                     ") and the mediator mean (dimension " + std::to_string(m.size()) + ") must have one dimension >= 1");
  const Eigen::LLT<Eigen::MatrixXd> sigma_llt = positive_definite(Sigma, "Sigma", dim);
  const Eigen::LLT<Eigen::MatrixXd> v_llt = positive_definite(V, "V", dim);
  const double log_det_v = 2.0 * v_llt.matrixLLT().diagonal().array().log().sum();
  const double d = static_cast<double>(dim);
  // log c = (D/4) log(2 pi) + (D/2) log 2 + (1/4) log |V|.
  const double log_c = 0.25 * d * std::log(2.0 * M_PI) + 0.5 * d * std::log(2.0) + 0.25 * log_det_v;
  MiBlock out;
  out.log_weight = log_c + GaussianModel::full(m, Sigma + 2.0 * V)->log_density(x);

  const std::optional<double> s = isotropic_variance(Sigma), v = isotropic_variance(V);
  if (s && v) {
    // P = (1/s + 1/(2v))^-1 I, mu_x = P (x/s + m/(2v)).
    const double p = 1.0 / (1.0 / *s + 0.5 / *v);
    out.block = GaussianModel::isotropic(p * (x / *s + 0.5 * m / *v), p);
    return out;
  }
  const Eigen::MatrixXd sigma_inverse = sigma_llt.solve(Eigen::MatrixXd::Identity(dim, dim));
  const Eigen::MatrixXd two_v_inverse = 0.5 * v_llt.solve(Eigen::MatrixXd::Identity(dim, dim));
  Eigen::MatrixXd P = (sigma_inverse + two_v_inverse).llt().solve(Eigen::MatrixXd::Identity(dim, dim));
  P = 0.5 * (P + P.transpose());  // symmetric to the last bit, as a covariance must be
  const Eigen::VectorXd mu = P * (sigma_inverse * x + two_v_inverse * m);
  out.block = GaussianModel::full(mu, P);
  return out;
}

}  // namespace ppk
