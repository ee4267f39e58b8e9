// The Gaussian pieces of EM shared by mixtures and HMMs (see gaussian_em.hpp).
#include "estimate/gaussian_em.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/covariance_prior.hpp"
#include "ppk/estimate/pooled_priors.hpp"

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

StackedRows stack_rows(const std::vector<Eigen::MatrixXd>& examples, const std::string& noun) {
  if (examples.empty()) throw EstimationError("there are no " + noun + "s to fit");
  StackedRows out;
  for (std::size_t s = 0; s < examples.size(); ++s) {
    const std::string name = examples.size() == 1 ? "the " + noun : noun + " " + std::to_string(s + 1);
    if (examples[s].rows() < 1 || examples[s].cols() < 1) throw EstimationError(name + " is empty");
    if (!examples[s].allFinite()) throw EstimationError("the vectors of " + name + " must have finite values");
    if (examples[s].cols() != examples[0].cols())
      throw EstimationError(name + " has " + std::to_string(examples[s].cols()) + " coordinates, the first " +
                            std::to_string(examples[0].cols()));
    out.bounds.push_back(out.bounds.back() + examples[s].rows());
  }
  out.x.resize(out.bounds.back(), examples[0].cols());
  for (std::size_t s = 0; s < examples.size(); ++s) out.x.middleRows(out.bounds[s], examples[s].rows()) = examples[s];
  return out;
}

double default_ridge(const Eigen::MatrixXd& x) {
  const double mean_variance =
      (x.rowwise() - x.colwise().mean()).squaredNorm() / static_cast<double>(x.rows() * x.cols());
  return mean_variance > 0.0 ? 1e-6 * mean_variance : 1e-6;
}

Eigen::MatrixXd log_densities(const Eigen::MatrixXd& x, const GaussianComponents& c) {
  Eigen::MatrixXd out(x.rows(), static_cast<Eigen::Index>(c.means.size()));
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    // Diagonal and isotropic: sum_d (x_d - mu_d)^2 / sigma_d^2 and log|Sigma| = sum_d log sigma_d^2, O(n D).
    if (c.form != CovarianceForm::full) {
      const Eigen::ArrayXd variances = c.covariances[k].diagonal().array();
      if (!(variances > 0.0).all()) throw OptionError("a Gaussian covariance is not positive definite; raise {ridge}");
      const Eigen::ArrayXXd centred = (x.rowwise() - c.means[k].transpose()).array();
      out.col(static_cast<Eigen::Index>(k)) =
          -0.5 * ((centred.square().rowwise() / variances.transpose()).rowwise().sum() + variances.log().sum() +
                  static_cast<double>(x.cols()) * kLogTwoPi)
                     .matrix();
      continue;
    }
    const Eigen::LLT<Eigen::MatrixXd> cholesky(c.covariances[k]);
    if (cholesky.info() != Eigen::Success)
      throw OptionError("a Gaussian covariance is not positive definite; raise {ridge}");
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
  for (const Eigen::MatrixXd& covariance : c.covariances)
    penalty +=
        0.5 * ridge *
        (c.form == CovarianceForm::full ? covariance.inverse().trace() : covariance.diagonal().cwiseInverse().sum());
  return penalty;
}

double covariance_log_prior(const GaussianComponents& c, const CovariancePrior* prior) {
  if (prior == nullptr) return 0.0;
  const double nu = prior->count;
  // log IW(Sigma | nu, Psi) for a p x p block, Psi = (nu - p - 1) centre.
  const auto log_iw = [nu](const Eigen::MatrixXd& centre, const Eigen::MatrixXd& sigma) {
    const double p = static_cast<double>(centre.rows());
    const Eigen::MatrixXd psi = (nu - p - 1.0) * centre;
    const Eigen::LLT<Eigen::MatrixXd> psi_llt(psi), sigma_llt(sigma);
    const double log_det_psi = 2.0 * psi_llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    const double log_det_sigma = 2.0 * sigma_llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    return 0.5 * nu * log_det_psi - 0.5 * nu * p * std::log(2.0) - log_multivariate_gamma(centre.rows(), 0.5 * nu) -
           0.5 * (nu + p + 1.0) * log_det_sigma - 0.5 * sigma_llt.solve(psi).trace();
  };
  double total = 0.0;
  for (const Eigen::MatrixXd& sigma : c.covariances) {
    switch (c.form) {
      case CovarianceForm::full: total += log_iw(prior->centre, sigma); break;
      case CovarianceForm::diagonal:
        for (Eigen::Index d = 0; d < sigma.rows(); ++d)
          total += log_iw(prior->centre.block(d, 0, 1, 1), sigma.block(d, d, 1, 1));
        break;
      case CovarianceForm::isotropic: total += log_iw(prior->centre, sigma.block(0, 0, 1, 1)); break;
    }
  }
  return total;
}

Eigen::MatrixXd m_step_covariance(const Eigen::MatrixXd& scatter, double nk, double ridge, const CovariancePrior* prior,
                                  CovarianceForm form) {
  const Eigen::Index dim = scatter.rows();
  const double d = static_cast<double>(dim);
  if (form != CovarianceForm::full) {  // from the scatter's diagonal alone: O(D) beyond the result's storage
    const Eigen::ArrayXd s = scatter.diagonal().array();
    Eigen::ArrayXd variances;
    if (form == CovarianceForm::diagonal)
      variances =
          prior == nullptr
              ? ((s + ridge) / nk).eval()
              : (((prior->count - 2.0) * prior->centre.col(0).array() + s + ridge) / (prior->count + nk + 2.0)).eval();
    else
      variances = Eigen::ArrayXd::Constant(
          dim, prior == nullptr
                   ? (s.sum() + ridge * d) / (nk * d)
                   : ((prior->count - 2.0) * prior->centre(0, 0) + s.sum() + ridge * d) / (prior->count + nk * d + 2.0));
    return Eigen::MatrixXd(variances.matrix().asDiagonal());
  }
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(dim, dim);
  if (prior == nullptr) return (scatter + ridge * identity) / nk;
  const double nu = prior->count;
  return ((nu - d - 1.0) * prior->centre + scatter + ridge * identity) / (nu + nk + d + 1.0);
}

WeightedMoments weighted_moments(const Eigen::MatrixXd& x, const Eigen::VectorXd& responsibilities, CovarianceForm form) {
  WeightedMoments out;
  out.count = responsibilities.sum();
  if (!(out.count > 0.0)) return out;
  out.mean = (x.transpose() * responsibilities) / out.count;
  const Eigen::MatrixXd centred = x.rowwise() - out.mean.transpose();
  if (form == CovarianceForm::full)
    out.scatter = centred.transpose() * responsibilities.asDiagonal() * centred;
  else
    out.scatter = ((centred.array().square().colwise() * responsibilities.array()).colwise().sum())
                      .transpose()
                      .matrix()
                      .asDiagonal();
  return out;
}

namespace {

// log t_dof(y_j | location, scale) for every row j of y: the D-variate Student t,
//   log Gamma((dof + D)/2) - log Gamma(dof/2) - (D/2) log(dof pi) - (1/2) log|scale|
//   - ((dof + D)/2) log(1 + (y - location)' scale^-1 (y - location) / dof).
Eigen::VectorXd student_t_log_densities(const Eigen::MatrixXd& y, const Eigen::VectorXd& location,
                                        const Eigen::MatrixXd& scale, double dof) {
  const double d = static_cast<double>(y.cols());
  const Eigen::LLT<Eigen::MatrixXd> cholesky(scale);
  if (cholesky.info() != Eigen::Success) throw EstimationError("a predictive scale matrix is not positive definite");
  const Eigen::MatrixXd whitened = cholesky.matrixL().solve((y.rowwise() - location.transpose()).transpose());
  const double log_det = 2.0 * cholesky.matrixL().toDenseMatrix().diagonal().array().log().sum();
  const double constant =
      std::lgamma(0.5 * (dof + d)) - std::lgamma(0.5 * dof) - 0.5 * d * std::log(dof * M_PI) - 0.5 * log_det;
  return (constant - 0.5 * (dof + d) * (whitened.colwise().squaredNorm().array() / dof).log1p()).transpose();
}

}  // namespace

Eigen::MatrixXd predictive_log_densities(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                                         const CovariancePrior& prior, CovarianceForm form, const Eigen::MatrixXd& y) {
  const Eigen::Index dim = x.cols();
  const double d = static_cast<double>(dim), nu = prior.count;
  Eigen::MatrixXd out(y.rows(), responsibilities.cols());
  for (Eigen::Index k = 0; k < responsibilities.cols(); ++k) {
    const WeightedMoments m = weighted_moments(x, responsibilities.col(k), form);
    if (!(m.count > 0.0)) {
      out.col(k).setConstant(-std::numeric_limits<double>::infinity());
      continue;
    }
    const double inflation = 1.0 + 1.0 / m.count;  // the mean's posterior variance added to Sigma's
    switch (form) {
      case CovarianceForm::full: {
        const double dof = nu + m.count - d;
        const Eigen::MatrixXd psi =
            (nu - d - 1.0) * prior.centre + m.scatter + ridge * Eigen::MatrixXd::Identity(dim, dim);
        out.col(k) = student_t_log_densities(y, m.mean, psi * (inflation / dof), dof);
        break;
      }
      case CovarianceForm::diagonal: {
        const double dof = nu + m.count - 1.0;
        out.col(k).setZero();
        for (Eigen::Index j = 0; j < dim; ++j) {
          const double psi = (nu - 2.0) * prior.centre(j, 0) + m.scatter(j, j) + ridge;
          out.col(k) += student_t_log_densities(y.col(j), m.mean.segment(j, 1),
                                                Eigen::MatrixXd::Constant(1, 1, psi * inflation / dof), dof);
        }
        break;
      }
      case CovarianceForm::isotropic: {
        const double dof = nu + (m.count - 1.0) * d;
        const double psi = (nu - 2.0) * prior.centre(0, 0) + m.scatter.trace() + ridge * d;
        out.col(k) =
            student_t_log_densities(y, m.mean, Eigen::MatrixXd::Identity(dim, dim) * (psi * inflation / dof), dof);
        break;
      }
    }
  }
  return out;
}

void update_gaussians(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                      const CovariancePrior* prior, GaussianComponents& c) {
  const Eigen::Index dim = x.cols();
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    const WeightedMoments m = weighted_moments(x, responsibilities.col(static_cast<Eigen::Index>(k)), c.form);
    if (!(m.count > 0.0)) {  // an empty component keeps its mean; under a prior its covariance is the prior's mode
      if (prior != nullptr)
        c.covariances[k] = m_step_covariance(Eigen::MatrixXd::Zero(dim, dim), 0.0, ridge, prior, c.form);
      continue;
    }
    c.means[k] = m.mean;
    c.covariances[k] = m_step_covariance(m.scatter, m.count, ridge, prior, c.form);
  }
}

double adaptation_log_prior(const GaussianComponents& c, const GaussianAdaptation& adaptation) {
  const double tau = adaptation.relevance;
  double log_prior = 0.0;
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    if (c.form != CovarianceForm::full) {  // the same with Sigma_k and Sigma0_k diagonal: O(D)
      const Eigen::ArrayXd variances = c.covariances[k].diagonal().array();
      if (adaptation.means)
        log_prior -= 0.5 * tau * ((c.means[k] - adaptation.pooled->means[k]).array().square() / variances).sum();
      if (adaptation.covariances)
        log_prior -= 0.5 * tau *
                     (variances.log().sum() + (adaptation.pooled->covariances[k].diagonal().array() / variances).sum());
      continue;
    }
    const Eigen::LLT<Eigen::MatrixXd> cholesky(c.covariances[k]);
    if (adaptation.means) {
      const Eigen::VectorXd offset = c.means[k] - adaptation.pooled->means[k];
      log_prior -= 0.5 * tau * offset.dot(cholesky.solve(offset));
    }
    if (adaptation.covariances) {
      const double log_det = 2.0 * cholesky.matrixLLT().diagonal().array().log().sum();
      log_prior -= 0.5 * tau * (log_det + cholesky.solve(adaptation.pooled->covariances[k]).trace());
    }
  }
  return log_prior;
}

void adapt_gaussians(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, double ridge,
                     const GaussianAdaptation& adaptation, GaussianComponents& c) {
  const double tau = adaptation.relevance;
  const Eigen::Index dim = x.cols();
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(dim, dim);
  for (std::size_t k = 0; k < c.means.size(); ++k) {
    const Eigen::VectorXd& pooled_mean = adaptation.pooled->means[k];
    WeightedMoments m = weighted_moments(x, responsibilities.col(static_cast<Eigen::Index>(k)), c.form);
    if (!(m.count > 0.0)) {  // no data: the prior's mode
      m.mean = Eigen::VectorXd::Zero(dim);
      m.scatter = Eigen::MatrixXd::Zero(dim, dim);
      m.count = 0.0;
    }
    if (adaptation.means) c.means[k] = (m.count * m.mean + tau * pooled_mean) / (m.count + tau);
    if (!adaptation.covariances) continue;
    const Eigen::VectorXd data_offset = m.mean - c.means[k], prior_offset = c.means[k] - pooled_mean;
    Eigen::MatrixXd numerator = m.scatter + tau * adaptation.pooled->covariances[k] + ridge * identity;
    if (m.count > 0.0) numerator += m.count * data_offset * data_offset.transpose();
    if (adaptation.means) numerator += tau * prior_offset * prior_offset.transpose();
    c.covariances[k] = in_form(numerator / (m.count + tau), c.form);
  }
}

GaussianComponents gaussian_components(const std::vector<const Model*>& models, const std::string& what) {
  GaussianComponents c;
  for (std::size_t k = 0; k < models.size(); ++k) {
    const auto* gaussian = dynamic_cast<const GaussianModel*>(models[k]);
    const std::string name = what + " " + std::to_string(k + 1);
    if (gaussian == nullptr)
      throw EstimationError(name + " is " + with_article(models[k]->family().name) + ", not a gaussian");
    if (k == 0) c.form = gaussian->form();
    if (gaussian->form() != c.form || gaussian->dim() != models[0]->sample_space().dim)
      throw EstimationError(name + " differs in covariance form or dimension from the first");
    c.means.push_back(gaussian->mean());
    c.covariances.push_back(gaussian->covariance());
  }
  return c;
}

GaussianComponents seed_gaussians(const Eigen::MatrixXd& x, long count, CovarianceForm form, double ridge,
                                  std::mt19937_64& rng) {
  const Eigen::Index n = x.rows();
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
  const WeightedMoments all = weighted_moments(x, Eigen::VectorXd::Ones(n), form);  // the data's scatter
  c.covariances.assign(count, m_step_covariance(all.scatter, static_cast<double>(n), ridge, nullptr, form));
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
