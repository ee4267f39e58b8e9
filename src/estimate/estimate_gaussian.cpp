// Gaussian estimators (see estimate.hpp): statistics n, the mean x-bar and the centred scatter
// S = sum_i (x_i - x-bar)(x_i - x-bar)' (full: D x D; diagonal and isotropic: its diagonal).
// Centred statistics avoid the cancellation of sum x x' - n x-bar x-bar'; two sets combine by
// the parallel-variance rule (Chan, Golub and LeVeque 1979):
//   n = n_a + w n_b,  x-bar = x-bar_a + (w n_b / n) delta,  S = S_a + w S_b + (n_a w n_b / n) delta delta',
// delta = x-bar_b - x-bar_a.
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_gaussian.hpp"
#include "ppk/estimate/pooled_priors.hpp"

namespace ppk {
namespace {

using detail::build_model;
using detail::short_number;
using detail::vector_count;

const char* const kFamily = "gaussian";
const char* const kRemedy =
    "give {ridge} R (added to the covariance diagonal) or {variance} V (a fixed isotropic variance)";

// The sample mean of the rows of x. A coordinate that is constant across the rows gets that
// constant exactly (not sum/n, which may round), so that its scatter is exactly 0.
Eigen::VectorXd sample_mean(const Eigen::MatrixXd& x) {
  Eigen::VectorXd mean = x.colwise().mean().transpose();
  for (Eigen::Index d = 0; d < x.cols(); ++d)
    if (x.col(d).minCoeff() == x.col(d).maxCoeff()) mean(d) = x(0, d);
  return mean;
}

// The scatter's own form: the full matrix, or its diagonal as a D x 1 column.
Eigen::MatrixXd in_form(const Eigen::MatrixXd& full_or_outer, bool full) {
  return full ? full_or_outer : Eigen::MatrixXd(full_or_outer.diagonal());
}

class GaussianEstimator : public Estimator {
 public:
  explicit GaussianEstimator(const GaussianFitOptions& options) : options_(options) {
    detail::check_option("ridge", options.ridge, 0, false);
    if (options.variance) {
      detail::check_option("variance", *options.variance, 0, true);
      if (options.covariance != CovarianceForm::isotropic || options.ridge != 0)
        throw EstimationError("a fixed variance is an isotropic covariance with no ridge");
    } else if (options.method == Method::posterior) {
      throw OptionError(
          "the posterior predictive of a Gaussian with an unknown covariance is a Student t "
          "distribution, not a supported family; fix the variance ({variance} V) or use ml or map");
    }
    if (!std::isfinite(options.prior_mean))
      throw OptionError("{prior_mean} must be a finite number, got " + short_number(options.prior_mean));
    detail::check_option("prior_strength", options.prior_strength, 0, false);
    detail::check_option("prior_variance", options.prior_variance, 0, true);
    detail::check_option("prior_count", options.prior_count, 0, true);
    if (options.prior_centre) check_pooled_prior(options);
  }

  std::string family() const override { return kFamily; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    // A full covariance's working set: about six D x D matrices (the scatter and its product's
    // temporary, the covariance, its Cholesky factor, a prior's or a pool's copy, the row's values;
    // 1.09 GB measured at D = 5000) besides the n x D data.
    const double d = static_cast<double>(dim), rows = static_cast<double>(vectors.size());
    if (full() && !options_.variance)
      detail::check_working_memory(8.0 * (6.0 * d * d + 2.0 * rows * d),
                                   "a full covariance in " + std::to_string(dim) + " dimensions",
                                   "give {covariance} diag or iso");
    Eigen::MatrixXd x = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(vectors.size()), dim);
    for (std::size_t i = 0; i < vectors.size(); ++i)
      for (const Feature& f : vectors[i]) x(static_cast<Eigen::Index>(i), f.coord) = f.value;
    const Eigen::VectorXd mean = sample_mean(x);
    if (!mean.allFinite()) throw EstimationError("the mean overflows: the values are too large");
    Statistics statistics = detail::empty_statistics(kFamily, dim, vectors);
    statistics.sums["mean"] = mean;
    if (!options_.variance) {
      const Eigen::MatrixXd centred = x.rowwise() - mean.transpose();
      statistics.sums["scatter"] = full() ? Eigen::MatrixXd(centred.transpose() * centred)
                                          : Eigen::MatrixXd(centred.colwise().squaredNorm().transpose());
    }
    return statistics;
  }

  Statistics pool(const Statistics& a, const Statistics& b, double weight) const override {
    const Eigen::MatrixXd& mean_a = detail::sum_of(a, "mean");
    const Eigen::MatrixXd& mean_b = detail::sum_of(b, "mean");
    if (mean_b.rows() != mean_a.rows()) throw EstimationError("the pooled mean has the wrong dimension");
    Statistics pooled = a;
    const double wb = weight * b.count;
    pooled.count = a.count + wb;
    const Eigen::VectorXd delta = mean_b - mean_a;
    pooled.sums["mean"] = mean_a + (wb / pooled.count) * delta;
    if (!options_.variance) {
      const Eigen::MatrixXd& scatter_b = detail::sum_of(b, "scatter");
      if (scatter_b.cols() != (full() ? a.dim : 1))
        throw OptionError("the pooled scatter is not of the " + std::string(full() ? "full" : "diagonal") +
                          " form this fit uses ({covariance})");
      pooled.sums["scatter"] = detail::sum_of(a, "scatter") + weight * scatter_b +
                               (a.count * wb / pooled.count) * in_form(delta * delta.transpose(), full());
    }
    return pooled;
  }

  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const double n = statistics.count;
    const long dim = statistics.dim;
    const Eigen::VectorXd xbar = detail::sum_of(statistics, "mean");
    // The MAP mean m = (n x-bar + k0 m0 1) / (n + k0); the ML mean is x-bar.
    const double k0 = options_.method == Method::ml ? 0.0 : options_.prior_strength;
    Eigen::VectorXd mean = xbar;
    if (k0 > 0) mean = (n * xbar + k0 * Eigen::VectorXd::Constant(dim, options_.prior_mean)) / (n + k0);

    if (options_.variance) {
      double variance = *options_.variance;
      if (options_.method == Method::posterior) variance *= 1.0 + 1.0 / (n + k0);
      return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
    }

    Eigen::MatrixXd scatter = detail::sum_of(statistics, "scatter");
    if (options_.prior_centre) return fit_pooled_map(n, std::move(mean), std::move(scatter));
    if (options_.method == Method::map) return fit_map(n, k0, xbar, std::move(mean), std::move(scatter));
    switch (options_.covariance) {
      case CovarianceForm::full: return fit_full_ml(n, std::move(mean), scatter);
      case CovarianceForm::diagonal: return fit_diagonal_ml(n, std::move(mean), scatter);
      case CovarianceForm::isotropic: return fit_isotropic_ml(n, std::move(mean), scatter);
    }
    throw EstimationError("unknown covariance form");
  }

 private:
  bool full() const { return options_.covariance == CovarianceForm::full; }

  // A diagonal or isotropic ML variance needs two vectors (one has variance 0) unless a ridge is added.
  void require_two_vectors(double n, const char* form) const {
    if (options_.ridge == 0 && n < 2)
      throw OptionError("the example has " + vector_count(n) + ", whose maximum-likelihood variance is 0; " + form +
                        " covariance needs at least 2; " + kRemedy);
  }

  std::unique_ptr<Model> fit_full_ml(double n, Eigen::VectorXd mean, const Eigen::MatrixXd& scatter) const {
    const long dim = mean.size();
    if (options_.ridge == 0 && n < dim + 1)
      throw OptionError("the example has " + vector_count(n) + "; a full covariance in " + std::to_string(dim) +
                        " dimensions needs at least " + std::to_string(dim + 1) + " for maximum likelihood; " + kRemedy +
                        (n >= 2 ? ", or use {covariance} diag|iso" : ""));
    return full_model(n, std::move(mean), scatter / n,
                      "they do not span R^" + std::to_string(dim) + "; " + kRemedy + ", or use {covariance} diag|iso");
  }

  // Sigma + ridge I, checked for numerical rank: singular when lambda_min <= D eps lambda_max.
  std::unique_ptr<Model> full_model(double n, Eigen::VectorXd mean, Eigen::MatrixXd cov,
                                    const std::string& remedy) const {
    const long dim = mean.size();
    cov.diagonal().array() += options_.ridge;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(cov, Eigen::EigenvaluesOnly);
    const double smallest = eigen.eigenvalues()(0), largest = eigen.eigenvalues()(dim - 1);
    if (!(smallest > dim * std::numeric_limits<double>::epsilon() * largest)) {
      const std::string why = "the covariance of the " + vector_count(n) + " is singular (eigenvalues " +
                              short_number(smallest) + " to " + short_number(largest) + ")";
      if (options_.ridge == 0) throw OptionError(why + ": " + remedy);
      throw OptionError(why + " even with {ridge} " + short_number(options_.ridge) + "; increase the ridge");
    }
    return build_model([&] { return GaussianModel::full(std::move(mean), std::move(cov)); });
  }

  std::unique_ptr<Model> fit_diagonal_ml(double n, Eigen::VectorXd mean, const Eigen::MatrixXd& scatter) const {
    require_two_vectors(n, "a diagonal");
    Eigen::VectorXd variances = scatter.col(0) / n;
    variances.array() += options_.ridge;
    for (Eigen::Index d = 0; d < variances.size(); ++d)
      if (!(variances(d) > 0))
        throw OptionError("feature " + std::to_string(d + 1) + " is constant (= " + short_number(mean(d)) +
                          ") across the " + vector_count(n) + ", so its maximum-likelihood variance is 0; " + kRemedy);
    return build_model([&] { return GaussianModel::diagonal(std::move(mean), std::move(variances)); });
  }

  std::unique_ptr<Model> fit_isotropic_ml(double n, Eigen::VectorXd mean, const Eigen::MatrixXd& scatter) const {
    require_two_vectors(n, "an isotropic");
    const double variance = scatter.sum() / (n * static_cast<double>(mean.size())) + options_.ridge;
    if (!(variance > 0))
      throw OptionError("the " + vector_count(n) + " are identical, so the maximum-likelihood variance is 0; " + kRemedy);
    return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
  }

  // The joint posterior mode under the conjugate prior (estimate.hpp): the scatter plus
  // nu0 s0 and B = k0 n / (k0 + n) (x-bar - m0)(x-bar - m0)', over nu0 + n + D + 2 (full),
  // nu0 + n + 3 (each diagonal variance) or nu0 + n D + D + 2 (the isotropic variance).
  std::unique_ptr<Model> fit_map(double n, double k0, const Eigen::VectorXd& xbar, Eigen::VectorXd mean,
                                 Eigen::MatrixXd scatter) const {
    const double dim = static_cast<double>(mean.size());
    const double nu0 = options_.prior_count, s0 = options_.prior_variance;
    const Eigen::VectorXd offset = xbar - Eigen::VectorXd::Constant(mean.size(), options_.prior_mean);
    scatter += (k0 * n / (k0 + n)) * in_form(offset * offset.transpose(), full());
    switch (options_.covariance) {
      case CovarianceForm::full: {
        scatter.diagonal().array() += nu0 * s0;
        return full_model(n, std::move(mean), scatter / (nu0 + n + dim + 2), "increase {prior_variance} or {ridge}");
      }
      case CovarianceForm::diagonal: {
        Eigen::VectorXd variances = (scatter.col(0).array() + nu0 * s0) / (nu0 + n + 3);
        variances.array() += options_.ridge;
        return build_model([&] { return GaussianModel::diagonal(std::move(mean), std::move(variances)); });
      }
      case CovarianceForm::isotropic: {
        const double variance = (nu0 * s0 + scatter.sum()) / (nu0 + n * dim + dim + 2) + options_.ridge;
        return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
      }
    }
    throw EstimationError("unknown covariance form");
  }

  // The prior centred on C (estimate.hpp): nu above p + 1 (p = D full, 1 otherwise), C of the form's
  // shape, a flat prior on the mean.
  static void check_pooled_prior(const GaussianFitOptions& options) {
    if (options.method != Method::map)
      throw OptionError("{prior_centre} is a prior of the map estimator: add {method} map");
    if (options.variance) throw OptionError("{prior_centre} is a prior on the covariance; {variance} fixes it");
    if (options.prior_strength != 0)
      throw OptionError("{prior_centre} leaves the mean's prior flat; drop {prior_strength}");
    const Eigen::MatrixXd& centre = *options.prior_centre;
    const Eigen::Index dim = centre.rows();
    const bool full = options.covariance == CovarianceForm::full;
    const Eigen::Index cols = full ? dim : 1;
    if (centre.cols() != cols || (options.covariance == CovarianceForm::isotropic && dim != 1))
      throw OptionError("the prior's centre is not of the " + std::string(full ? "full" : "diagonal or isotropic") +
                        " form this fit uses ({covariance})");
    const double lowest = full ? static_cast<double>(dim) + 1 : 2.0;
    if (!(options.prior_count > lowest) || !std::isfinite(options.prior_count))
      throw OptionError(
          "{prior_count} with {prior_centre} is the inverse-Wishart's degrees of freedom nu, which "
          "must exceed " +
          short_number(lowest) + " (p + 1, p = " + short_number(lowest - 1) +
          ") for the prior's mean to be the pooled covariance, got " + short_number(options.prior_count));
  }

  // The joint posterior mode under the flat mean prior and Sigma ~ IW(nu, (nu - p - 1) C), or the
  // posterior mean of Sigma (estimate.hpp): the same numerator over a divisor of the form's.
  std::unique_ptr<Model> fit_pooled_map(double n, Eigen::VectorXd mean, Eigen::MatrixXd scatter) const {
    const double dim = static_cast<double>(mean.size()), nu = options_.prior_count;
    const bool posterior_mean = options_.pooled_posterior_mean;
    const Eigen::MatrixXd& centre = *options_.prior_centre;
    if (centre.rows() != (options_.covariance == CovarianceForm::isotropic ? 1 : mean.size()))
      throw EstimationError("the prior's centre has dimension " + std::to_string(centre.rows()) + ", the data " +
                            std::to_string(mean.size()));
    switch (options_.covariance) {
      case CovarianceForm::full: {
        const double divisor = posterior_mean ? nu + n - dim - 2 : nu + n + dim + 1;
        Eigen::MatrixXd cov = ((nu - dim - 1) * centre + scatter) / divisor;
        return full_model(n, std::move(mean), std::move(cov), "increase {prior_count} or {ridge}");
      }
      case CovarianceForm::diagonal: {
        Eigen::VectorXd variances =
            ((nu - 2) * centre.col(0) + scatter.col(0)) / (posterior_mean ? nu + n - 3 : nu + n + 2);
        variances.array() += options_.ridge;
        return build_model([&] { return GaussianModel::diagonal(std::move(mean), std::move(variances)); });
      }
      case CovarianceForm::isotropic: {
        const double divisor = posterior_mean ? nu + (n - 1) * dim - 2 : nu + n * dim + 2;
        const double variance = ((nu - 2) * centre(0, 0) + scatter.sum()) / divisor + options_.ridge;
        return build_model([&] { return GaussianModel::isotropic(std::move(mean), variance); });
      }
    }
    throw EstimationError("unknown covariance form");
  }

  GaussianFitOptions options_;
};

// sum_i S_i and sum_i (n_i - 1) over the examples' statistics (scatters of one form).
std::pair<Eigen::MatrixXd, double> within_scatter(const std::vector<Statistics>& examples) {
  Eigen::MatrixXd sum;
  double dof = 0;
  for (const Statistics& example : examples) {
    const Eigen::MatrixXd& scatter = detail::sum_of(example, "scatter");
    if (sum.size() == 0) sum = Eigen::MatrixXd::Zero(scatter.rows(), scatter.cols());
    if (scatter.rows() != sum.rows() || scatter.cols() != sum.cols())
      throw EstimationError("the examples' scatters differ in shape");
    sum += scatter;
    dof += example.count - 1;
  }
  return {sum, dof};
}

}  // namespace

Eigen::MatrixXd gaussian_pooled_centre(const std::vector<Statistics>& examples, CovarianceForm form) {
  const auto [sum, dof] = within_scatter(examples);
  if (!(dof > 0))
    throw EstimationError(
        "every example has a single vector, so none says how vectors vary around their mean: "
        "the pooled prior needs examples of at least 2 vectors");
  if (form == CovarianceForm::isotropic) {
    const double variance = sum.sum() / (dof * static_cast<double>(sum.rows()));
    if (!(variance > 0))
      throw EstimationError("the vectors are identical within every example: the pooled variance is 0");
    return Eigen::MatrixXd::Constant(1, 1, variance);
  }
  Eigen::MatrixXd centre = sum / dof;
  for (Eigen::Index d = 0; d < centre.rows(); ++d)
    if (!(centre(d, form == CovarianceForm::full ? d : 0) > 0))
      throw EstimationError("feature " + std::to_string(d + 1) +
                            " is constant within every example: its pooled within-example variance is 0");
  if (form == CovarianceForm::full) {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(centre, Eigen::EigenvaluesOnly);
    const double smallest = eigen.eigenvalues()(0), largest = eigen.eigenvalues()(centre.rows() - 1);
    if (!(smallest > static_cast<double>(centre.rows()) * std::numeric_limits<double>::epsilon() * largest))
      throw OptionError("the pooled within-example covariance is singular (eigenvalues " + short_number(smallest) +
                        " to " + short_number(largest) + "): use {covariance} diag or iso");
  }
  return centre;
}

InverseWishartEvidence gaussian_prior_evidence(const std::vector<Statistics>& examples, CovarianceForm form,
                                               const Eigen::MatrixXd& centre) {
  InverseWishartEvidence evidence;
  for (const Statistics& example : examples) {
    const double dof = example.count - 1;
    if (!(dof > 0)) continue;
    const Eigen::MatrixXd& scatter = detail::sum_of(example, "scatter");
    switch (form) {
      case CovarianceForm::full: evidence.add(centre, scatter, dof); break;
      case CovarianceForm::diagonal:
        for (Eigen::Index d = 0; d < scatter.rows(); ++d)
          evidence.add(centre.block(d, 0, 1, 1), scatter.block(d, 0, 1, 1), dof);
        break;
      case CovarianceForm::isotropic:
        evidence.add(centre, Eigen::MatrixXd::Constant(1, 1, scatter.sum()), dof * static_cast<double>(scatter.rows()));
        break;
    }
  }
  return evidence;
}

std::unique_ptr<Estimator> gaussian_estimator(const GaussianFitOptions& options) {
  return std::make_unique<GaussianEstimator>(options);
}

}  // namespace ppk
