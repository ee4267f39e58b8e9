// Poisson, exponential, gamma and Dirichlet estimators (see estimate.hpp). Each family's
// statistics are sums of its sufficient statistics T(x) over the example's vectors: "x" (Poisson,
// exponential, gamma) and "log_x" (gamma, Dirichlet); pooling adds them (Estimator::pool).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/trigamma.hpp>

#include "estimate/estimate_detail.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/estimate/estimate.hpp"
#include "ppk/estimate/estimate_poisson.hpp"
#include "ppk/estimate/estimate_exponential.hpp"
#include "ppk/estimate/estimate_gamma.hpp"
#include "ppk/estimate/estimate_dirichlet.hpp"
#include "ppk/families/exponential.hpp"
#include "ppk/families/gamma.hpp"
#include "ppk/families/poisson.hpp"

namespace ppk {
namespace {

using boost::math::digamma;
using boost::math::trigamma;
using detail::build_model;
using detail::short_number;

std::vector<double> as_vector(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

void reject_posterior(Method method, const char* family, const char* predictive) {
  if (method == Method::posterior)
    throw OptionError(std::string("the posterior predictive of a ") + family + " is " + predictive +
                      ", not a supported family; use {method} ml or map");
}

// The pooled means of a pooled prior (Poisson rates, exponential scales): a map prior, finite, >= 0.
void check_pooled_prior(Method method, const std::optional<Eigen::VectorXd>& pooled, const char* what) {
  if (!pooled) return;
  if (method != Method::map)
    throw OptionError("{prior_" + std::string(what) + "} is a prior of the map estimator: add {method} map");
  if (!((pooled->array() >= 0).all() && pooled->allFinite()))
    throw EstimationError(std::string("the pooled ") + what + " must be finite numbers >= 0");
}

// ---- Poisson -------------------------------------------------------------------------------

class PoissonEstimator : public Estimator {
 public:
  explicit PoissonEstimator(const PoissonFitOptions& options) : options_(options) {
    reject_posterior(options.method, "Poisson", "negative binomial");
    detail::check_option("prior_shape", options.prior_shape, 0, true);
    detail::check_option("prior_rate", options.prior_rate, 0, false);
    check_pooled_prior(options.method, options.prior_rates, "rates");
  }
  std::string family() const override { return "poisson"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    for (std::size_t i = 0; i < vectors.size(); ++i)
      for (const Feature& f : vectors[i])
        if (!(f.value >= 0) || f.value != std::floor(f.value))
          throw EstimationError(detail::value_at(f.value, i, f.coord, vectors.size()) +
                                " is not a count; Poisson data are whole numbers >= 0");
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["x"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return v; });
    return statistics;
  }

  // ml: rate = sum x / n;  map (Gamma(A, B) prior): rate = max(0, sum x + A - 1) / (n + B).
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const Eigen::VectorXd sum = detail::sum_of(statistics, "x");
    Eigen::VectorXd rate;
    const double n = statistics.count;
    if (options_.method == Method::ml) {
      rate = sum / n;
    } else if (options_.prior_rates) {
      // rate_d ~ Gamma(A, A / r_d): the posterior Gamma(s + A, n + A / r_d), its mean or mode.
      const Eigen::VectorXd& pooled = *options_.prior_rates;
      if (pooled.size() != sum.size())
        throw EstimationError("the pooled rates have dimension " + std::to_string(pooled.size()) + ", the data " +
                              std::to_string(sum.size()));
      const double a = options_.prior_shape, shift = options_.pooled_posterior_mean ? a : a - 1;
      rate = Eigen::VectorXd::Zero(sum.size());
      for (Eigen::Index d = 0; d < sum.size(); ++d)
        if (pooled(d) > 0) rate(d) = std::max(0.0, sum(d) + shift) / (n + a / pooled(d));
    } else
      rate = (sum.array() + options_.prior_shape - 1).max(0.0) / (statistics.count + options_.prior_rate);
    return build_model([&] { return std::make_unique<PoissonModel>(as_vector(rate)); });
  }

 private:
  PoissonFitOptions options_;
};

// ---- exponential ---------------------------------------------------------------------------

class ExponentialEstimator : public Estimator {
 public:
  explicit ExponentialEstimator(const ExponentialFitOptions& options) : options_(options) {
    reject_posterior(options.method, "exponential", "a Lomax distribution");
    detail::check_option("prior_shape", options.prior_shape, 0, true);
    detail::check_option("prior_rate", options.prior_rate, 0, false);
    check_pooled_prior(options.method, options.prior_scales, "scales");
    if (options.prior_scales && !(options.prior_shape > 1))
      throw OptionError(
          "{prior_scales} needs {prior_shape} A > 1 for exponential rows (the prior mean of "
          "the scale, B / (A - 1), is centred on the pooled scale), got " +
          short_number(options.prior_shape));
  }
  std::string family() const override { return "exponential"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    for (std::size_t i = 0; i < vectors.size(); ++i)
      for (const Feature& f : vectors[i])
        if (!(f.value >= 0))
          throw EstimationError(detail::value_at(f.value, i, f.coord, vectors.size()) +
                                " is negative; exponential data are >= 0");
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["x"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return v; });
    return statistics;
  }

  // ml: b = sum x / n;  map (Gamma(A, B) prior on the rate 1/b, its mode): b = (sum x + B) / (n + A - 1);
  // map --prior pooled (B_d = (A - 1) bbar_d): the posterior mean (n + A - 1) or mode (n + A + 1) of the scale.
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    const Eigen::VectorXd sum = detail::sum_of(statistics, "x");
    const bool ml = options_.method == Method::ml;
    const double a = options_.prior_shape;
    const double shift = ml ? 0.0 : options_.prior_scales && !options_.pooled_posterior_mean ? a + 1 : a - 1;
    const double denominator = statistics.count + shift;
    if (!(denominator > 0))
      throw OptionError("the MAP scale needs n + A - 1 > 0 (n = " + short_number(statistics.count) +
                        ", A = " + short_number(a) + "); increase {prior_shape}");
    Eigen::VectorXd prior_rate = Eigen::VectorXd::Constant(sum.size(), ml ? 0.0 : options_.prior_rate);
    if (options_.prior_scales) {
      if (options_.prior_scales->size() != sum.size())
        throw EstimationError("the pooled scales have dimension " + std::to_string(options_.prior_scales->size()) +
                              ", the data " + std::to_string(sum.size()));
      prior_rate = (a - 1) * *options_.prior_scales;
    }
    const Eigen::VectorXd scale = (sum + prior_rate) / denominator;
    for (Eigen::Index d = 0; d < scale.size(); ++d)
      if (!(scale(d) > 0))
        throw OptionError("index " + std::to_string(d + 1) + " is 0 in every vector, so its " +
                          (ml ? "maximum-likelihood" : "MAP") +
                          " scale is 0; use {method} map with {prior_rate} B > 0, or {lambda}");
    return build_model([&] { return std::make_unique<ExponentialModel>(as_vector(scale)); });
  }

 private:
  ExponentialFitOptions options_;
};

// ---- gamma and Dirichlet -------------------------------------------------------------------

// Every value of every coordinate, which must be > 0 and present (a LIBSVM row omits zeros).
void require_positive_values(const std::vector<SparseVector>& vectors, long dim, const char* family) {
  detail::for_each_value(vectors, dim, [&](std::size_t i, long d, double value) {
    if (!(value > 0))
      throw EstimationError(detail::value_at(value, i, d, vectors.size()) + (value == 0 ? " (absent)" : "") +
                            " is not > 0; " + family + " data are > 0 in every coordinate");
  });
}

// The gamma shape a with log a - digamma(a) = s, for s > 0: Newton's method on
// f(a) = log a - digamma(a) - s (decreasing and convex in a, so Newton from Minka's (2002)
// starting point a0 = (3 - s + sqrt((s - 3)^2 + 24 s)) / (12 s), which is below the root,
// increases monotonically to it).
double gamma_shape(double s) {
  double a = (3 - s + std::sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double f = std::log(a) - digamma(a) - s;
    const double step = f / (1 / a - trigamma(a));
    const double next = a - step > 0 ? a - step : a / 2;
    if (std::fabs(next - a) <= 1e-15 * a) return next;
    a = next;
  }
  return a;
}

class GammaEstimator : public Estimator {
 public:
  explicit GammaEstimator(const GammaFitOptions& options) : options_(options) {
    reject_posterior(options.method, "gamma", "not of closed form");
    detail::check_option("prior_shape", options.prior_shape, 0, true);
    detail::check_option("prior_scale", options.prior_scale, 0, true);
    detail::check_option("prior_count", options.prior_count, 0, true);
    if (options.prior_centre) {
      if (options.method != Method::map)
        throw OptionError("{prior_centre} is a prior of the map estimator: add {method} map");
      const Eigen::MatrixXd& centre = *options.prior_centre;
      if (centre.cols() != 2 || !centre.allFinite() || !(centre.col(0).array() > 0).all())
        throw EstimationError("the gamma prior's centre must be D x 2 finite pooled means (of x > 0, of log x)");
    }
  }
  std::string family() const override { return "gamma"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    require_positive_values(vectors, dim, "gamma");
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["x"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return v; });
    statistics.sums["log_x"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return std::log(v); });
    return statistics;
  }

  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    double n = statistics.count;
    Eigen::VectorXd sum = detail::sum_of(statistics, "x"), sum_log = detail::sum_of(statistics, "log_x");
    if (options_.method == Method::map && options_.prior_centre) {
      // nu0 pseudo-observations with the pooled statistics: mean x = m_d, mean log x = l_d.
      const Eigen::MatrixXd& centre = *options_.prior_centre;
      if (centre.rows() != sum.size())
        throw EstimationError("the gamma prior's centre has dimension " + std::to_string(centre.rows()) + ", the data " +
                              std::to_string(sum.size()));
      const double nu0 = options_.prior_count;
      n += nu0;
      sum += nu0 * centre.col(0);
      sum_log += nu0 * centre.col(1);
    } else if (options_.method == Method::map) {
      // nu0 pseudo-observations with the statistics of Gamma(A0, B0): E[x] = A0 B0, E[log x] = digamma(A0) + log B0.
      const double nu0 = options_.prior_count, a0 = options_.prior_shape, b0 = options_.prior_scale;
      n += nu0;
      sum.array() += nu0 * a0 * b0;
      sum_log.array() += nu0 * (digamma(a0) + std::log(b0));
    }
    std::vector<double> shapes(static_cast<std::size_t>(sum.size())), scales(shapes.size());
    for (Eigen::Index d = 0; d < sum.size(); ++d) {
      // s = log(mean x) - mean(log x) >= 0 (Jensen), 0 only when every value is the same.
      const double mean = sum(d) / n, s = std::log(mean) - sum_log(d) / n;
      if (!(s > 1e-12))
        throw EstimationError("the values at index " + std::to_string(d + 1) + " are all equal (" + short_number(mean) +
                              "), so the maximum-likelihood shape is infinite; use "
                              "{method} map or {lambda}");
      const double shape = gamma_shape(s);
      shapes[static_cast<std::size_t>(d)] = shape;
      scales[static_cast<std::size_t>(d)] = mean / shape;
    }
    return build_model([&] { return std::make_unique<GammaModel>(std::move(shapes), std::move(scales)); });
  }

 private:
  GammaFitOptions options_;
};

// The inverse of digamma, by Newton's method from Minka's (2000) starting point.
double inverse_digamma(double y) {
  double x = y >= -2.22 ? std::exp(y) + 0.5 : -1 / (y - digamma(1.0));
  for (int iteration = 0; iteration < 8; ++iteration) x -= (digamma(x) - y) / trigamma(x);
  return x;
}

// The ML alpha for mean log statistics l (Minka 2000) maximises
//   L(alpha) = log Gamma(sum alpha) - sum_d log Gamma(alpha_d) + sum_d (alpha_d - 1) l_d,
// which is concave with gradient g_d = digamma(sum alpha) - digamma(alpha_d) + l_d and Hessian
// diag(q) + z 1 1', q_d = -trigamma(alpha_d), z = trigamma(sum alpha). Newton's step
// (H^-1 g)_d = (g_d - b) / q_d, b = sum_j (g_j / q_j) / (1/z + sum_j 1/q_j), falls back to the
// fixed point alpha_d <- digamma^-1(digamma(sum alpha) + l_d) when it would leave alpha > 0.
// The maximum exists iff sum_d exp(l_d) < 1, i.e. the vectors are not all equal
// (Jensen: sum_d exp(mean log x_d) <= sum_d mean x_d = 1).
Eigen::VectorXd dirichlet_alpha(const Eigen::VectorXd& mean_log) {
  if (!(mean_log.array().exp().sum() < 1 - 1e-12))
    throw OptionError(
        "the example's vectors are all equal (or it has only one), so the maximum-likelihood "
        "Dirichlet is infinitely concentrated; use {method} map or {lambda}");
  Eigen::VectorXd alpha = Eigen::VectorXd::Ones(mean_log.size());
  const Eigen::Index size = alpha.size();
  Eigen::VectorXd gradient(size), q(size), next(size);
  for (int iteration = 0; iteration < 1000; ++iteration) {
    const double total = alpha.sum(), digamma_total = digamma(total);
    for (Eigen::Index d = 0; d < size; ++d) {
      gradient(d) = digamma_total - digamma(alpha(d)) + mean_log(d);
      q(d) = -trigamma(alpha(d));
    }
    const double b = (gradient.array() / q.array()).sum() / (1 / trigamma(total) + (1 / q.array()).sum());
    next = alpha.array() - (gradient.array() - b) / q.array();
    if (!(next.minCoeff() > 0))
      for (Eigen::Index d = 0; d < size; ++d) next(d) = inverse_digamma(digamma_total + mean_log(d));
    const double change = ((next - alpha).array().abs() / next.array()).maxCoeff();
    alpha = next;
    if (change <= 1e-14) break;
  }
  if (!alpha.allFinite())
    throw OptionError("the Dirichlet maximum-likelihood iteration did not converge; use {method} map");
  return alpha;
}

class DirichletEstimator : public Estimator {
 public:
  explicit DirichletEstimator(const DirichletFitOptions& options) : options_(options) {
    reject_posterior(options.method, "Dirichlet", "not of closed form");
    detail::check_option("prior_alpha", options.prior_alpha, 0, true);
    detail::check_option("prior_count", options.prior_count, 0, true);
    if (options.prior_log_means) {
      if (options.method != Method::map)
        throw OptionError("{prior_log_means} is a prior of the map estimator: add {method} map");
      if (!(options.prior_log_means->array().exp().sum() < 1 - 1e-12) || !options.prior_log_means->allFinite())
        throw EstimationError(
            "the Dirichlet prior's centre (pooled mean log x) must satisfy sum_d exp(l_d) < 1 "
            "(vectors that are not all equal)");
    }
  }
  std::string family() const override { return "dirichlet"; }

  Statistics statistics(const std::vector<SparseVector>& vectors, long dim) const override {
    detail::check_example(vectors, dim);
    if (dim < 2) throw EstimationError("a Dirichlet needs dimension >= 2 (a Beta over proportions x is (x, 1 - x))");
    require_positive_values(vectors, dim, "Dirichlet");
    for (std::size_t i = 0; i < vectors.size(); ++i) {
      double total = 0;
      for (const Feature& f : vectors[i]) total += f.value;
      if (!(std::fabs(total - 1) <= 1e-6))
        throw EstimationError("the values" +
                              std::string(vectors.size() > 1 ? " of vector " + std::to_string(i + 1) : "") + " sum to " +
                              short_number(total) + "; Dirichlet data are probability vectors (sum 1)");
    }
    Statistics statistics = detail::empty_statistics(family(), dim, vectors);
    statistics.sums["log_x"] = detail::sum_over_entries(vectors, dim, [](long, double v) { return std::log(v); });
    return statistics;
  }

  // map: the ML alpha (dirichlet_alpha) of the data plus nu0 pseudo-observations.
  std::unique_ptr<Model> fit(const Statistics& statistics) const override {
    double n = statistics.count;
    Eigen::VectorXd sum_log = detail::sum_of(statistics, "log_x");
    const double dim = static_cast<double>(sum_log.size());
    if (options_.method == Method::map && options_.prior_log_means) {
      // nu0 pseudo-observations with the pooled statistics: mean log x_d = l_d.
      if (options_.prior_log_means->size() != sum_log.size())
        throw EstimationError("the Dirichlet prior's centre has dimension " +
                              std::to_string(options_.prior_log_means->size()) + ", the data " +
                              std::to_string(sum_log.size()));
      n += options_.prior_count;
      sum_log += options_.prior_count * *options_.prior_log_means;
    } else if (options_.method == Method::map) {
      // nu0 pseudo-observations with the statistics of Dirichlet(A0): E[log x_d] = digamma(A0) - digamma(D A0).
      const double nu0 = options_.prior_count, a0 = options_.prior_alpha;
      n += nu0;
      sum_log.array() += nu0 * (digamma(a0) - digamma(dim * a0));
    }
    const Eigen::VectorXd alpha = dirichlet_alpha(sum_log / n);
    return build_model([&] { return std::make_unique<DirichletModel>(as_vector(alpha)); });
  }

 private:
  DirichletFitOptions options_;
};

}  // namespace

double dirichlet_held_out_log_likelihood(const std::vector<Eigen::MatrixXd>& log_vectors,
                                         const Eigen::VectorXd& log_means, double count) {
  double total = 0;
  for (const Eigen::MatrixXd& example : log_vectors) {
    const Eigen::Index n = example.rows();
    if (n < 2) continue;
    const Eigen::VectorXd sum = example.colwise().sum().transpose();
    for (Eigen::Index j = 0; j < n; ++j) {
      const Eigen::VectorXd kept = sum - example.row(j).transpose();
      const Eigen::VectorXd alpha = dirichlet_alpha((kept + count * log_means) / (static_cast<double>(n - 1) + count));
      double score = std::lgamma(alpha.sum());
      for (Eigen::Index d = 0; d < alpha.size(); ++d) score += (alpha(d) - 1) * example(j, d) - std::lgamma(alpha(d));
      total += score;
    }
  }
  return total;
}

DirichletPriorChoice choose_dirichlet_prior_count(const std::vector<Eigen::MatrixXd>& log_vectors,
                                                  const Eigen::VectorXd& log_means) {
  if (std::none_of(log_vectors.begin(), log_vectors.end(), [](const Eigen::MatrixXd& e) { return e.rows() >= 2; }))
    throw EstimationError(
        "no example has 2 or more vectors: a held-out likelihood needs a vector to hold out "
        "and one to fit");
  DirichletPriorChoice choice;
  double best = -std::numeric_limits<double>::infinity();
  for (int k = -3; k <= 10; ++k) {
    const double count = std::ldexp(1.0, k);
    const double score = dirichlet_held_out_log_likelihood(log_vectors, log_means, count);
    choice.scores.emplace_back(count, score);
    if (score > best) best = score, choice.count = count;
  }
  return choice;
}

std::unique_ptr<Estimator> poisson_estimator(const PoissonFitOptions& options) {
  return std::make_unique<PoissonEstimator>(options);
}
std::unique_ptr<Estimator> exponential_estimator(const ExponentialFitOptions& options) {
  return std::make_unique<ExponentialEstimator>(options);
}
std::unique_ptr<Estimator> gamma_estimator(const GammaFitOptions& options) {
  return std::make_unique<GammaEstimator>(options);
}
std::unique_ptr<Estimator> dirichlet_estimator(const DirichletFitOptions& options) {
  return std::make_unique<DirichletEstimator>(options);
}

}  // namespace ppk
