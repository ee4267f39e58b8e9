// The Fisher score blocks of Gaussian states (formulas in fisher_gaussian.hpp): weighted sums of
// residuals for the means, of squared residuals for the covariances.
#include "estimate/fisher_gaussian.hpp"

#include <Eigen/Dense>

#include "estimate/fisher_scores.hpp"

namespace ppk::detail {

GaussianStateScores::GaussianStateScores(const std::vector<const Model*>& models, const std::string& what, bool means,
                                         bool covariances)
    : gaussians(gaussian_components(models, what)), means(means), covariances(covariances) {
  dim = static_cast<long>(gaussians.means.front().size());
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(dim, dim);
  for (const Eigen::MatrixXd& sigma : gaussians.covariances) precisions.push_back(sigma.llt().solve(identity));
}

void GaussianStateScores::name_state(long q, std::vector<std::string>& names) const {
  if (means)
    for (long d = 0; d < dim; ++d) names.push_back(indexed(indexed("means", q), d));
  if (!covariances) return;
  const std::string block = indexed("covariances", q);
  switch (gaussians.form) {
    case CovarianceForm::isotropic: names.push_back(block); break;
    case CovarianceForm::diagonal:
      for (long d = 0; d < dim; ++d) names.push_back(indexed(indexed(block, d), d));
      break;
    case CovarianceForm::full: name_entries(block, dim, dim, true, names); break;
  }
}

Eigen::Index GaussianStateScores::write_state(const Eigen::MatrixXd& x, const Eigen::Ref<const Eigen::VectorXd>& weights,
                                              std::size_t q, Eigen::VectorXd& out, Eigen::Index j) const {
  const Eigen::MatrixXd residuals = x.rowwise() - gaussians.means[q].transpose();  // e_t, n x D
  const Eigen::MatrixXd& precision = precisions[q];
  if (means) {
    out.segment(j, dim) = precision * (residuals.transpose() * weights);
    j += dim;
  }
  if (!covariances) return j;
  const double count = weights.sum();  // N_q
  const Eigen::MatrixXd& sigma = gaussians.covariances[q];
  switch (gaussians.form) {
    case CovarianceForm::isotropic: {
      const double trace_scatter = residuals.rowwise().squaredNorm().dot(weights);
      out(j++) = 0.5 * (trace_scatter / sigma(0, 0) - count * static_cast<double>(dim));
      break;
    }
    case CovarianceForm::diagonal: {
      const Eigen::VectorXd scatter_diagonal = residuals.array().square().matrix().transpose() * weights;
      out.segment(j, dim) = 0.5 * (scatter_diagonal.array() / sigma.diagonal().array() - count).matrix();
      j += dim;
      break;
    }
    case CovarianceForm::full:  // S_q = sum_t gamma_t(q) e_t e_t'
      j = write_covariance_entry_scores(precision, residuals.transpose() * weights.asDiagonal() * residuals, count, out,
                                        j);
      break;
  }
  return j;
}

}  // namespace ppk::detail
