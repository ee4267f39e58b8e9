// Mixture estimators (see estimate.hpp): Gaussian mixtures by EM and the kernel density estimate.
// Their statistic is the example's data matrix "x" (n x D); a mixture is not an exponential family,
// so there are no sufficient statistics to pool for shrinkage.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/Dense>

#include "estimate_detail.hpp"
#include "ppk/estimate.hpp"

namespace ppk {
namespace {

constexpr double kLogTwoPi = 1.8378770664093454836;  // log(2 pi)

// The example's vectors as the rows of an n x D matrix (absent entries 0).
Eigen::MatrixXd data_matrix(const std::vector<SparseVector>& vectors, long dim) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(vectors.size()), dim);
  for (std::size_t i = 0; i < vectors.size(); ++i)
    for (const Feature& f : vectors[i]) x(static_cast<Eigen::Index>(i), f.coord) = f.value;
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  return x;
}

// A Gaussian component's covariance in its form: the full matrix, or its diagonal, or the mean of
// its diagonal times I.
Eigen::MatrixXd in_form(const Eigen::MatrixXd& covariance, CovarianceForm form) {
  switch (form) {
    case CovarianceForm::full: return covariance;
    case CovarianceForm::diagonal: return Eigen::MatrixXd(covariance.diagonal().asDiagonal());
    case CovarianceForm::isotropic: break;
  }
  return Eigen::MatrixXd::Identity(covariance.rows(), covariance.cols()) * (covariance.trace() / covariance.rows());
}

struct Components {
  Eigen::VectorXd weights;                // w_k
  std::vector<Eigen::VectorXd> means;     // mu_k
  std::vector<Eigen::MatrixXd> covariances;  // Sigma_k, D x D in the chosen form
};

// log N(x_i | mu, Sigma) for every row of x.
Eigen::VectorXd log_densities(const Eigen::MatrixXd& x, const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance) {
  const Eigen::LLT<Eigen::MatrixXd> cholesky(covariance);
  if (cholesky.info() != Eigen::Success) throw EstimationError("a component covariance is not positive definite; raise --ridge");
  const Eigen::MatrixXd centred = (x.rowwise() - mean.transpose()).transpose();  // D x n
  const Eigen::MatrixXd whitened = cholesky.matrixL().solve(centred);
  const double log_det = 2.0 * cholesky.matrixL().toDenseMatrix().diagonal().array().log().sum();
  return (-0.5 * (whitened.colwise().squaredNorm().array() + log_det + x.cols() * kLogTwoPi)).transpose();
}

// One EM run from the given start; returns L after each iteration.
std::vector<double> run_em(const Eigen::MatrixXd& x, Components& c, const MixtureFitOptions& options, double ridge) {
  const Eigen::Index n = x.rows(), dim = x.cols(), size = c.weights.size();
  const Eigen::MatrixXd ridge_matrix = ridge * Eigen::MatrixXd::Identity(dim, dim);
  std::vector<double> log_likelihoods;
  for (long iteration = 0; iteration < options.iterations; ++iteration) {
    // E-step: log w_k + log N(x_i | mu_k, Sigma_k), normalised per row by log-sum-exp.
    Eigen::MatrixXd log_joint(n, size);
    for (Eigen::Index k = 0; k < size; ++k)
      log_joint.col(k) = log_densities(x, c.means[k], c.covariances[k]).array() + std::log(c.weights(k));
    const Eigen::VectorXd row_max = log_joint.rowwise().maxCoeff();
    const Eigen::VectorXd log_rows =
        row_max.array() + (log_joint.colwise() - row_max).array().exp().rowwise().sum().log();
    double penalty = 0.0;
    for (Eigen::Index k = 0; k < size; ++k) penalty += 0.5 * ridge * c.covariances[k].inverse().trace();
    const double objective = log_rows.sum() - penalty;
    const bool converged = !log_likelihoods.empty() &&
                           objective - log_likelihoods.back() < options.tolerance * std::fabs(objective);
    log_likelihoods.push_back(objective);
    if (converged) break;
    // M-step.
    const Eigen::MatrixXd responsibilities = (log_joint.colwise() - log_rows).array().exp();
    for (Eigen::Index k = 0; k < size; ++k) {
      const double nk = responsibilities.col(k).sum();
      c.weights(k) = nk / static_cast<double>(n);
      if (!(nk > 0.0)) continue;  // an empty component keeps its parameters at weight 0
      c.means[k] = (x.transpose() * responsibilities.col(k)) / nk;
      const Eigen::MatrixXd centred = x.rowwise() - c.means[k].transpose();
      const Eigen::MatrixXd scatter = centred.transpose() * responsibilities.col(k).asDiagonal() * centred;
      c.covariances[k] = in_form((scatter + ridge_matrix) / nk, options.covariance);
    }
    c.weights /= c.weights.sum();
  }
  return log_likelihoods;
}

// k-means++ seeding of the means; weights 1/K; covariances the data's covariance plus R/n I.
Components seed_components(const Eigen::MatrixXd& x, const MixtureFitOptions& options, double ridge,
                           std::mt19937_64& rng) {
  const Eigen::Index n = x.rows(), dim = x.cols();
  const Eigen::VectorXd mean = x.colwise().mean().transpose();
  const Eigen::MatrixXd centred = x.rowwise() - mean.transpose();
  const Eigen::MatrixXd covariance =
      in_form((centred.transpose() * centred + ridge * Eigen::MatrixXd::Identity(dim, dim)) / n, options.covariance);
  Components c;
  c.weights = Eigen::VectorXd::Constant(options.components, 1.0 / options.components);
  std::uniform_int_distribution<Eigen::Index> uniform(0, n - 1);
  c.means.push_back(x.row(uniform(rng)).transpose());
  Eigen::VectorXd nearest = (x.rowwise() - c.means[0].transpose()).rowwise().squaredNorm();
  while (static_cast<long>(c.means.size()) < options.components) {
    Eigen::Index chosen = uniform(rng);
    if (nearest.sum() > 0.0) {
      std::discrete_distribution<Eigen::Index> by_distance(nearest.data(), nearest.data() + n);
      chosen = by_distance(rng);
    }
    c.means.push_back(x.row(chosen).transpose());
    nearest = nearest.cwiseMin((x.rowwise() - c.means.back().transpose()).rowwise().squaredNorm());
  }
  c.covariances.assign(options.components, covariance);
  return c;
}

std::unique_ptr<Model> gaussian_component(const Eigen::VectorXd& mean, const Eigen::MatrixXd& covariance,
                                          CovarianceForm form) {
  switch (form) {
    case CovarianceForm::full: return GaussianModel::full(mean, covariance);
    case CovarianceForm::diagonal: return GaussianModel::diagonal(mean, covariance.diagonal());
    case CovarianceForm::isotropic: break;
  }
  return GaussianModel::isotropic(mean, covariance(0, 0));
}

[[noreturn]] void reject_pooling(const std::string& family) {
  throw EstimationError("a " + family +
                        " fit is not an exponential family: it has no sufficient statistics to pool, so --shrink "
                        "and pooled statistics are not supported");
}

const Eigen::MatrixXd& data_of(const Statistics& statistics) {
  const Eigen::MatrixXd& x = detail::sum_of(statistics, "x");
  if (x.cols() != statistics.dim) throw EstimationError("the statistic \"x\" must have one column per dimension");
  return x;
}

// The mixture estimators keep the example's vectors themselves (the n x D matrix "x"): a mixture
// is not an exponential family, so it has no fixed-size sufficient statistics and no pooling.
class DataMatrixEstimator : public Estimator {
 public:
  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["x"] = data_matrix(vectors, dim);
    return statistics;
  }
  Statistics pool(const Statistics&, const Statistics&, double) const override { reject_pooling(family()); }
};

class MixtureEstimator : public DataMatrixEstimator {
 public:
  explicit MixtureEstimator(const MixtureFitOptions& options) : options_(options) {
    if (options.components < 1) throw EstimationError("--components must be at least 1, got " + std::to_string(options.components));
    if (options.ridge) detail::check_option("--ridge", *options.ridge, 0, true);
    if (options.iterations < 1) throw EstimationError("--iterations must be at least 1, got " + std::to_string(options.iterations));
    detail::check_option("--tolerance", options.tolerance, 0, false);
    if (options.restarts < 1) throw EstimationError("--restarts must be at least 1, got " + std::to_string(options.restarts));
  }
  std::string family() const override { return "mixture"; }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_gaussian_mixture(data_of(statistics), options_).model);
  }

 private:
  MixtureFitOptions options_;
};

class KdeEstimator : public DataMatrixEstimator {
 public:
  explicit KdeEstimator(const KdeFitOptions& options) : options_(options) {
    detail::check_option("--bandwidth", options.bandwidth, 0, true);
  }
  std::string family() const override { return "kde"; }
  // (1/n) sum_i N(x_i, h I).
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const Eigen::MatrixXd& x = data_of(statistics);
    std::vector<std::unique_ptr<Model>> components;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      components.push_back(detail::build_model([&] { return GaussianModel::isotropic(x.row(i).transpose(), options_.bandwidth); }));
    return detail::build_model([&] {
      return std::make_unique<MixtureModel>(std::vector<double>(x.rows(), 1.0 / static_cast<double>(x.rows())),
                                            std::move(components));
    });
  }

 private:
  KdeFitOptions options_;
};

}  // namespace

GaussianMixtureFit fit_gaussian_mixture(const Eigen::MatrixXd& x, const MixtureFitOptions& options) {
  const Eigen::Index n = x.rows(), dim = x.cols();
  if (n < options.components)
    throw EstimationError("a mixture of " + std::to_string(options.components) + " components needs at least " +
                          std::to_string(options.components) + " vectors, got " + detail::vector_count(n) +
                          "; lower --components");
  double ridge = 1e-6;
  if (options.ridge) {
    ridge = *options.ridge;
  } else {
    const double mean_variance = (x.rowwise() - x.colwise().mean()).squaredNorm() / static_cast<double>(n * dim);
    if (mean_variance > 0.0) ridge *= mean_variance;
  }
  std::seed_seq seed{static_cast<std::uint64_t>(options.seed), static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(dim)};
  std::mt19937_64 rng(seed);
  std::optional<Components> best;
  std::vector<double> best_log_likelihoods;
  for (long restart = 0; restart < options.restarts; ++restart) {
    Components c = seed_components(x, options, ridge, rng);
    std::vector<double> log_likelihoods = run_em(x, c, options, ridge);
    if (!best || log_likelihoods.back() > best_log_likelihoods.back()) {
      best = std::move(c);
      best_log_likelihoods = std::move(log_likelihoods);
    }
  }
  std::vector<std::unique_ptr<Model>> components;
  for (Eigen::Index k = 0; k < best->weights.size(); ++k)
    components.push_back(detail::build_model(
        [&] { return gaussian_component(best->means[k], best->covariances[k], options.covariance); }));
  std::vector<double> weights(best->weights.data(), best->weights.data() + best->weights.size());
  GaussianMixtureFit fit;
  fit.model = detail::build_model([&] { return std::make_unique<MixtureModel>(std::move(weights), std::move(components)); });
  fit.log_likelihoods = std::move(best_log_likelihoods);
  return fit;
}

std::unique_ptr<Estimator> mixture_estimator(const MixtureFitOptions& options) {
  return std::make_unique<MixtureEstimator>(options);
}

std::unique_ptr<Estimator> kde_estimator(const KdeFitOptions& options) { return std::make_unique<KdeEstimator>(options); }

}  // namespace ppk
