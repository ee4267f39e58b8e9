// The Gaussian pieces of EM shared by mixtures and HMMs (see gaussian_em.hpp).
#include "gaussian_em.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "estimate_detail.hpp"
#include "model_fields.hpp"
#include "ppk/estimate.hpp"

namespace ppk::detail {
namespace {

constexpr double kLogTwoPi = 1.8378770664093454836;  // log(2 pi)

// A covariance in `form`: the full matrix, or its diagonal, or the mean of its diagonal times I.
Eigen::MatrixXd in_form(const Eigen::MatrixXd& covariance, CovarianceForm form) {
  switch (form) {
    case CovarianceForm::full: return covariance;
    case CovarianceForm::diagonal: return Eigen::MatrixXd(covariance.diagonal().asDiagonal());
    case CovarianceForm::isotropic: break;
  }
  return Eigen::MatrixXd::Identity(covariance.rows(), covariance.cols()) * (covariance.trace() / covariance.rows());
}

}  // namespace

Eigen::MatrixXd data_matrix(const std::vector<SparseVector>& vectors, long dim) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(vectors.size()), dim);
  for (std::size_t i = 0; i < vectors.size(); ++i)
    for (const Feature& f : vectors[i]) x(static_cast<Eigen::Index>(i), f.coord) = f.value;
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  return x;
}

double default_ridge(const Eigen::MatrixXd& x) {
  const double mean_variance =
      (x.rowwise() - x.colwise().mean()).squaredNorm() / static_cast<double>(x.rows() * x.cols());
  return mean_variance > 0.0 ? 1e-6 * mean_variance : 1e-6;
}

Eigen::MatrixXd log_densities(const Eigen::MatrixXd& x, const GaussianComponents& c) {
  Eigen::MatrixXd out(x.rows(), static_cast<Eigen::Index>(c.means.size()));
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    const Eigen::LLT<Eigen::MatrixXd> cholesky(c.covariances[k]);
    if (cholesky.info() != Eigen::Success)
      throw EstimationError("a Gaussian covariance is not positive definite; raise --ridge");
    const Eigen::MatrixXd centred = (x.rowwise() - c.means[k].transpose()).transpose();  // D x n
    const Eigen::MatrixXd whitened = cholesky.matrixL().solve(centred);
    const double log_det = 2.0 * cholesky.matrixL().toDenseMatrix().diagonal().array().log().sum();
    out.col(static_cast<Eigen::Index>(k)) =
        (-0.5 * (whitened.colwise().squaredNorm().array() + log_det + x.cols() * kLogTwoPi)).transpose();
  }
  return out;
}

MixtureEStep mixture_e_step(const Eigen::MatrixXd& x, const Eigen::VectorXd& weights, const GaussianComponents& c) {
  const Eigen::MatrixXd log_joint = log_densities(x, c).rowwise() + weights.array().log().matrix().transpose();
  const Eigen::VectorXd row_max = log_joint.rowwise().maxCoeff();
  MixtureEStep step;
  step.log_rows = row_max.array() + (log_joint.colwise() - row_max).array().exp().rowwise().sum().log();
  step.responsibilities = exp_entries((log_joint.colwise() - step.log_rows).array());
  return step;
}

double ridge_penalty(const GaussianComponents& c, double ridge) {
  double penalty = 0.0;
  for (const Eigen::MatrixXd& covariance : c.covariances) penalty += 0.5 * ridge * covariance.inverse().trace();
  return penalty;
}

void update_gaussians(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                      GaussianComponents& c) {
  const Eigen::MatrixXd ridge_matrix = ridge * Eigen::MatrixXd::Identity(x.cols(), x.cols());
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    const auto r = responsibilities.col(static_cast<Eigen::Index>(k));
    const double nk = r.sum();
    if (!(nk > 0.0)) continue;  // an empty component keeps its parameters
    c.means[k] = (x.transpose() * r) / nk;
    const Eigen::MatrixXd centred = x.rowwise() - c.means[k].transpose();
    const Eigen::MatrixXd scatter = centred.transpose() * r.asDiagonal() * centred;
    c.covariances[k] = in_form((scatter + ridge_matrix) / nk, c.form);
  }
}

GaussianComponents seed_gaussians(const Eigen::MatrixXd& x, long count, CovarianceForm form, double ridge,
                                  std::mt19937_64& rng) {
  const Eigen::Index n = x.rows(), dim = x.cols();
  const Eigen::VectorXd mean = x.colwise().mean().transpose();
  const Eigen::MatrixXd centred = x.rowwise() - mean.transpose();
  GaussianComponents c;
  c.form = form;
  std::uniform_int_distribution<Eigen::Index> uniform(0, n - 1);
  c.means.push_back(x.row(uniform(rng)).transpose());
  Eigen::VectorXd nearest = (x.rowwise() - c.means[0].transpose()).rowwise().squaredNorm();
  while (static_cast<long>(c.means.size()) < count) {
    Eigen::Index chosen = uniform(rng);
    if (nearest.sum() > 0.0) {
      std::discrete_distribution<Eigen::Index> by_distance(nearest.data(), nearest.data() + n);
      chosen = by_distance(rng);
    }
    c.means.push_back(x.row(chosen).transpose());
    nearest = nearest.cwiseMin((x.rowwise() - c.means.back().transpose()).rowwise().squaredNorm());
  }
  c.covariances.assign(
      count, in_form((centred.transpose() * centred + ridge * Eigen::MatrixXd::Identity(dim, dim)) / n, form));
  return c;
}

std::unique_ptr<Model> gaussian_model(const GaussianComponents& c, std::size_t k) {
  return build_model([&]() -> std::unique_ptr<Model> {
    switch (c.form) {
      case CovarianceForm::full: return GaussianModel::full(c.means[k], c.covariances[k]);
      case CovarianceForm::diagonal: return GaussianModel::diagonal(c.means[k], c.covariances[k].diagonal());
      case CovarianceForm::isotropic: break;
    }
    return GaussianModel::isotropic(c.means[k], c.covariances[k](0, 0));
  });
}

}  // namespace ppk::detail
