// Mixture estimators (see estimate.hpp): Gaussian mixtures by EM and the kernel density estimate.
// Their statistic is the example's data matrix "x" (n x D); a mixture is not an exponential family,
// so there are no sufficient statistics to pool for shrinkage. Also the pooled mixture of many sets
// and its MAP adaptation to one (adaptation.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/gaussian_em.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/estimate/adaptation.hpp"
#include "ppk/estimate/fisher.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_mixture.hpp"
#include "ppk/estimate/covariance_prior.hpp"

namespace ppk {
namespace {

// The M-step and prior of one EM run: ML with the ridge (and the covariance prior), or the MAP
// adaptation toward a pooled mixture (adaptation.hpp).
struct MixtureMStep {
  double ridge = 0.0;
  const CovariancePrior* prior = nullptr;
  const detail::GaussianAdaptation* adaptation = nullptr;
  const Eigen::VectorXd* pooled_weights = nullptr;  // with `adaptation`
  bool adapt_weights = false;

  // The objective's terms besides log p(X).
  double log_prior(const Eigen::VectorXd& weights, const detail::GaussianComponents& c) const {
    double terms = detail::covariance_log_prior(c, prior) - detail::ridge_penalty(c, ridge);
    if (adaptation == nullptr) return terms;
    terms += detail::adaptation_log_prior(c, *adaptation);
    // tau w0_k log w_k, the weights' Dirichlet(1 + tau w0) prior.
    if (adapt_weights)
      terms += detail::log_dirichlet_prior(weights.array(), adaptation->relevance * pooled_weights->array());
    return terms;
  }
  void update(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities, Eigen::VectorXd& weights,
              detail::GaussianComponents& c) const {
    const Eigen::VectorXd counts = responsibilities.colwise().sum().transpose();
    if (adaptation == nullptr) {
      weights = counts / counts.sum();
      detail::update_gaussians(x, responsibilities, ridge, prior, c);
      return;
    }
    // w_k = (N_k + tau w0_k) / (n + tau).
    if (adapt_weights) {
      weights = counts + adaptation->relevance * *pooled_weights;
      weights /= weights.sum();
    }
    detail::adapt_gaussians(x, responsibilities, ridge, *adaptation, c);
  }
};

// One EM run from the given start; returns L after 0, 1, 2, ... M-steps (the last for the final
// parameters).
std::vector<double> run_em(const Eigen::MatrixXd& x, Eigen::VectorXd& weights, detail::GaussianComponents& c,
                           long iterations, double tolerance, const MixtureMStep& m_step) {
  std::vector<double> log_likelihoods;
  for (long m_steps = 0;; ++m_steps) {
    // E-step: log w_k + log N(x_i | mu_k, Sigma_k), normalised per row by log-sum-exp.
    const detail::MixtureEStep step = detail::mixture_e_step(x, weights, c);
    const double objective = step.log_rows.sum() + m_step.log_prior(weights, c);
    const bool converged =
        !log_likelihoods.empty() && objective - log_likelihoods.back() < tolerance * std::fabs(objective);
    log_likelihoods.push_back(objective);
    if (converged || m_steps == iterations) break;
    m_step.update(x, step.responsibilities, weights, c);
  }
  return log_likelihoods;
}

// The mixture of the weights and Gaussians, with the EM record and the responsibilities of x.
GaussianMixtureFit mixture_fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& weights,
                               const detail::GaussianComponents& c, std::vector<double> log_likelihoods) {
  std::vector<std::unique_ptr<Model>> components;
  for (std::size_t k = 0; k < c.means.size(); ++k) components.push_back(detail::gaussian_model(c, k));
  std::vector<double> weight_list(weights.data(), weights.data() + weights.size());
  GaussianMixtureFit fit;
  fit.model =
      detail::build_model([&] { return std::make_unique<MixtureModel>(std::move(weight_list), std::move(components)); });
  fit.log_likelihoods = std::move(log_likelihoods);
  fit.responsibilities = detail::mixture_e_step(x, weights, c).responsibilities;
  return fit;
}

class MixtureEstimator : public detail::DataMatrixEstimator {
 public:
  explicit MixtureEstimator(const MixtureFitOptions& options) : options_(options) { check_mixture_fit_options(options); }
  std::string family() const override { return "mixture"; }
  std::unique_ptr<FisherScores> fisher_scores(const Model& pooled, const AdaptedParameters& parameters) const override {
    return mixture_fisher_scores(detail::pooled_model_as<MixtureModel>(pooled, family()), parameters);
  }
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    return std::move(fit_gaussian_mixture(detail::data_of(statistics), options_).model);
  }
  std::unique_ptr<Model> fit_pooled(const std::vector<Statistics>& examples, unsigned) const override {
    std::vector<Eigen::MatrixXd> sets;
    for (const Statistics& example : examples) sets.push_back(detail::data_of(example));
    return std::move(fit_pooled_mixture(sets, options_).model);
  }
  std::unique_ptr<Model> adapt(const Model& pooled, const Statistics& example,
                               const AdaptationOptions& options) const override {
    return std::move(
        adapt_mixture(detail::pooled_model_as<MixtureModel>(pooled, family()), detail::data_of(example), options).model);
  }

 private:
  MixtureFitOptions options_;
};

class KdeEstimator : public detail::DataMatrixEstimator {
 public:
  explicit KdeEstimator(const KdeFitOptions& options) : options_(options) {
    detail::check_option("bandwidth", options.bandwidth, 0, true);
  }
  std::string family() const override { return "kde"; }
  // (1/n) sum_i N(x_i, h I).
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const Eigen::MatrixXd& x = detail::data_of(statistics);
    std::vector<std::unique_ptr<Model>> components;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      components.push_back(
          detail::build_model([&] { return GaussianModel::isotropic(x.row(i).transpose(), options_.bandwidth); }));
    return detail::build_model([&] {
      return std::make_unique<MixtureModel>(std::vector<double>(x.rows(), 1.0 / static_cast<double>(x.rows())),
                                            std::move(components));
    });
  }

 private:
  KdeFitOptions options_;
};

}  // namespace

void check_mixture_fit_options(const MixtureFitOptions& options) {
  if (options.components < 1)
    throw OptionError("{components} must be at least 1, got " + std::to_string(options.components));
  if (options.ridge) detail::check_option("ridge", *options.ridge, 0, true);
  if (options.iterations < 1)
    throw OptionError("{iterations} must be at least 1, got " + std::to_string(options.iterations));
  detail::check_option("tolerance", options.tolerance, 0, false);
  if (options.restarts < 1) throw OptionError("{restarts} must be at least 1, got " + std::to_string(options.restarts));
}

void check_covariance_prior(const CovariancePrior& prior, CovarianceForm form, long dim) {
  const long p = form == CovarianceForm::full ? dim : 1;
  if (!(prior.count > static_cast<double>(p + 1)) || !std::isfinite(prior.count))
    throw OptionError("{prior.count} must be a finite number > " + std::to_string(p + 1) +
                      " (p + 1, p = " + std::to_string(p) + "), got " + detail::short_number(prior.count));
  const Eigen::Index rows = form == CovarianceForm::isotropic ? 1 : dim;
  const Eigen::Index cols = form == CovarianceForm::full ? dim : 1;
  if (prior.centre.rows() != rows || prior.centre.cols() != cols)
    throw OptionError("the covariance prior's centre is " + std::to_string(prior.centre.rows()) + " x " +
                      std::to_string(prior.centre.cols()) + ", expected " + std::to_string(rows) + " x " +
                      std::to_string(cols) + " for this {covariance} and dimension");
  const bool positive = form == CovarianceForm::full ? Eigen::LLT<Eigen::MatrixXd>(prior.centre).info() == Eigen::Success
                                                     : (prior.centre.array() > 0.0).all();
  if (!prior.centre.allFinite() || !positive)
    throw EstimationError("the covariance prior's centre must be positive definite");
}

GaussianMixtureFit fit_gaussian_mixture(const Eigen::MatrixXd& x, const MixtureFitOptions& options) {
  check_mixture_fit_options(options);
  const Eigen::Index n = x.rows(), dim = x.cols();
  if (n < options.components)
    throw OptionError("a mixture of " + std::to_string(options.components) + " components needs at least " +
                      std::to_string(options.components) + " vectors, got " + detail::vector_count(n) +
                      "; lower {components}");
  const double ridge = options.ridge ? *options.ridge : detail::default_ridge(x);
  if (options.prior) check_covariance_prior(*options.prior, options.covariance, static_cast<long>(dim));
  std::seed_seq seed{static_cast<std::uint64_t>(options.seed), static_cast<std::uint64_t>(n),
                     static_cast<std::uint64_t>(dim)};
  // The working set: the current and the best restart's K means and D x D covariances (every form
  // is stored as a dense D x D matrix), an M-step's scatter and covariance, the E-step's n x K
  // densities and responsibilities, and the centred n x D data.
  const double k = static_cast<double>(options.components), d = static_cast<double>(dim);
  const double rows = static_cast<double>(n);
  const double bytes = 8.0 * (2.0 * k * (d + d * d) + 3.0 * d * d + 4.0 * rows * k + 2.0 * rows * d);
  const std::string need = "EM for a mixture of {components} " + std::to_string(options.components) + " in " +
                           std::to_string(dim) + " dimensions over " + detail::vector_count(rows);
  const std::string remedy = options.covariance == CovarianceForm::full
                                 ? "lower {components}, or give {covariance} diag or iso"
                                 : "lower {components}";
  return detail::with_working_memory(bytes, need, remedy, [&] {
    std::mt19937_64 rng(seed);
    std::optional<detail::GaussianComponents> best;
    Eigen::VectorXd best_weights;
    std::vector<double> best_log_likelihoods;
    for (long restart = 0; restart < options.restarts; ++restart) {
      Eigen::VectorXd weights = Eigen::VectorXd::Constant(options.components, 1.0 / options.components);
      detail::GaussianComponents c = detail::seed_gaussians(x, options.components, options.covariance, ridge, rng);
      std::vector<double> log_likelihoods =
          run_em(x, weights, c, options.iterations, options.tolerance,
                 MixtureMStep{ridge, options.prior ? &*options.prior : nullptr, nullptr, nullptr, false});
      if (!best || log_likelihoods.back() > best_log_likelihoods.back()) {
        best = std::move(c);
        best_weights = std::move(weights);
        best_log_likelihoods = std::move(log_likelihoods);
      }
    }
    return mixture_fit(x, best_weights, *best, std::move(best_log_likelihoods));
  });
}

GaussianMixtureFit fit_pooled_mixture(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options) {
  // The sets' vectors as one i.i.d. sample.
  return fit_gaussian_mixture(detail::stack_rows(sets, "set").x, options);
}

std::vector<long> default_component_grid() { return {1, 2, 3, 4, 6, 8, 12, 16, 24, 32}; }

SizeChoice choose_pooled_components(const std::vector<Eigen::MatrixXd>& sets, const MixtureFitOptions& options,
                                    const std::vector<long>& grid) {
  check_mixture_fit_options(options);
  if (sets.size() < 5)
    throw OptionError(
        "choosing {components} for a pooled mixture holds out every fifth set: it needs at least 5 sets, got " +
        std::to_string(sets.size()) + "; give {components}");
  std::vector<Eigen::MatrixXd> kept, held;
  for (std::size_t i = 0; i < sets.size(); ++i) (i % 5 == 4 ? held : kept).push_back(sets[i]);
  Eigen::Index kept_vectors = 0;
  for (const Eigen::MatrixXd& set : kept) kept_vectors += set.rows();
  MixtureFitOptions cheaper = options;
  cheaper.iterations = std::min(options.iterations, 100L);
  SizeChoice choice;
  for (long components : grid) {
    if (components > kept_vectors) continue;
    cheaper.components = components;
    const GaussianMixtureFit fit = fit_pooled_mixture(kept, cheaper);
    double score = 0.0;
    for (const Eigen::MatrixXd& set : held)
      for (Eigen::Index i = 0; i < set.rows(); ++i) score += fit.model->log_probability(set.row(i).transpose());
    choice.grid.push_back(components);
    choice.held_out_log_likelihoods.push_back(score);
    if (choice.grid.size() == 1 || score > choice.best_score) {
      choice.size = components;
      choice.best_score = score;
    }
  }
  if (choice.grid.empty())
    throw EstimationError("the kept sets have " + std::to_string(kept_vectors) + " vectors, fewer than every K tried");
  return choice;
}

GaussianMixtureFit adapt_mixture(const MixtureModel& pooled, const Eigen::MatrixXd& x, const AdaptationOptions& options) {
  check_adaptation_options(options);
  std::vector<const Model*> models;
  for (std::size_t k = 0; k < pooled.size(); ++k) models.push_back(&pooled.component(k));
  detail::GaussianComponents c = detail::gaussian_components(models, "the pooled mixture's component");
  if (x.rows() < 1) throw EstimationError("the set is empty");
  if (!x.allFinite()) throw EstimationError("the vectors must have finite values");
  if (x.cols() != static_cast<Eigen::Index>(c.means[0].size()))
    throw EstimationError("the set's vectors have " + std::to_string(x.cols()) +
                          " coordinates, the pooled mixture's components " + std::to_string(c.means[0].size()));
  const detail::GaussianComponents pooled_components = c;
  const Eigen::VectorXd pooled_weights =
      Eigen::Map<const Eigen::VectorXd>(pooled.weights().data(), static_cast<Eigen::Index>(pooled.size()));
  const detail::GaussianAdaptation adaptation{&pooled_components, options.relevance, options.adapt.means,
                                              options.adapt.covariances};
  Eigen::VectorXd weights = pooled_weights;
  std::vector<double> log_likelihoods =
      run_em(x, weights, c, options.iterations, options.tolerance,
             MixtureMStep{options.ridge.value_or(0.0), nullptr, &adaptation, &pooled_weights, options.adapt.weights});
  return mixture_fit(x, weights, c, std::move(log_likelihoods));
}

std::unique_ptr<Estimator> mixture_estimator(const MixtureFitOptions& options) {
  return std::make_unique<MixtureEstimator>(options);
}

std::unique_ptr<Estimator> kde_estimator(const KdeFitOptions& options) { return std::make_unique<KdeEstimator>(options); }

double mean_map_bandwidth(double sigma) {
  detail::check_option("sigma", sigma, 0, true);
  return sigma * sigma / 2;
}

}  // namespace ppk
