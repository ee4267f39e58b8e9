// The mediators of mutual-information kernels (mi.hpp; Seeger, NIPS 2001, sections 2 and 2.1): the
// Gaussian likelihood with a Gaussian mediator and the multinomial likelihood with a Dirichlet
// mediator, each fitted by model-trust scaling (eq. 5),
//     P_med(theta) ~ P(theta) prod_i P(x_i | theta)^(lambda/n),
// which for these conjugate pairs is the prior updated with lambda times the mean sufficient statistic.
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "ppk/core/model_fields.hpp"
#include "ppk/families/dirichlet.hpp"
#include "ppk/families/mi.hpp"

namespace ppk {

namespace {

void check_lambda(double lambda) {
  if (!(lambda >= 0.0) || !std::isfinite(lambda))
    throw ModelError("model-trust scaling: lambda must be a finite number >= 0, got " + detail::format_number(lambda));
}

// ModelError unless x has `dim` entries (`what` names x).
void check_datum_dimension(const Eigen::VectorXd& x, long dim, const std::string& what) {
  if (x.size() != dim)
    throw ModelError(what + " has dimension " + std::to_string(x.size()) + ", but the mediator's dimension is " +
                     std::to_string(dim));
}

// The mean of the unlabeled points (each checked to have `dim` entries).
Eigen::VectorXd mean_of(const std::vector<Eigen::VectorXd>& points, long dim, const char* what) {
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(dim);
  for (std::size_t i = 0; i < points.size(); ++i) {
    check_datum_dimension(points[i], dim, std::string(what) + " " + std::to_string(i));
    sum += points[i];
  }
  return sum / static_cast<double>(points.size());
}

// The mediator JSON's fields, checked to be the `name` mediator of dimension D >= min_dim.
detail::JsonFields mediator_fields(const nlohmann::json& object, const std::string& name,
                                   std::initializer_list<const char*> fields, long min_dim, long* dim) {
  const std::string family = name + " mediator";
  detail::JsonFields out(object, family, fields);
  if (out.required("mediator") != name) throw out.invalid("mediator", "\"" + name + "\"");
  *dim = out.whole_number("dim", min_dim, detail::kMaxDimension);
  return out;
}

// ModelError unless the JSON vector `field` has `dim` entries.
Eigen::VectorXd json_vector(const detail::JsonFields& fields, const char* field, long dim) {
  const std::vector<double> values = fields.reals(field);
  if (static_cast<long>(values.size()) != dim)
    throw fields.invalid(field, std::to_string(dim) + " numbers (one per dimension, \"dim\")");
  return Eigen::Map<const Eigen::VectorXd>(values.data(), dim);
}

}  // namespace

// ---- Gaussian likelihood N(x | theta, s I), mediator N(theta | m, a I) --------------------------

GaussianMiMediator::GaussianMiMediator(double likelihood_variance, Eigen::VectorXd mean, double variance)
    : s_(likelihood_variance), m_(std::move(mean)), a_(variance) {
  if (!detail::is_positive_finite(s_))
    throw ModelError("gaussian mediator: the likelihood variance s must be a finite number > 0, got " +
                     detail::format_number(s_));
  if (!detail::is_positive_finite(a_))
    throw ModelError("gaussian mediator: the mediator variance a must be a finite number > 0, got " +
                     detail::format_number(a_));
  if (m_.size() < 1 || !m_.allFinite()) throw ModelError("gaussian mediator: the mean must be finite, of dimension >= 1");
}

GaussianMiMediator GaussianMiMediator::fit(long dim, double likelihood_variance, const GaussianMiPrior& prior,
                                           const std::vector<Eigen::VectorXd>& unlabeled, double lambda) {
  check_lambda(lambda);
  if (!(prior.variance > 0.0) || !std::isfinite(prior.mean))
    throw ModelError("gaussian mediator: the prior variance a0 must be > 0 (infinity: flat) and the prior mean finite");
  if (!detail::is_positive_finite(likelihood_variance))
    throw ModelError("gaussian mediator: the likelihood variance s must be a finite number > 0, got " +
                     detail::format_number(likelihood_variance));
  const bool flat = std::isinf(prior.variance);
  const double prior_precision = flat ? 0.0 : 1.0 / prior.variance;
  // With no unlabeled points the mediator is the prior (lambda / n times an empty sum).
  const double data_precision = unlabeled.empty() ? 0.0 : lambda / likelihood_variance;
  if (prior_precision + data_precision == 0.0)
    throw ModelError(
        "gaussian mediator: a flat prior is not a distribution, and model-trust scaling keeps it flat unless "
        "lambda > 0 and there are unlabeled points (the mediator N(x-bar, (s / lambda) I) needs both); give "
        "unlabeled data with lambda > 0, or a prior variance");
  Eigen::VectorXd weighted_mean = Eigen::VectorXd::Constant(dim, prior_precision * prior.mean);
  if (!unlabeled.empty()) weighted_mean += data_precision * mean_of(unlabeled, dim, "unlabeled point");
  const double variance = 1.0 / (prior_precision + data_precision);
  return GaussianMiMediator(likelihood_variance, variance * weighted_mean, variance);
}

GaussianMiMediator GaussianMiMediator::from_json(const nlohmann::json& object) {
  long dim = 0;
  const detail::JsonFields fields =
      mediator_fields(object, "gaussian", {"mediator", "dim", "likelihood_variance", "mean", "variance"}, 1, &dim);
  return GaussianMiMediator(fields.real("likelihood_variance"), json_vector(fields, "mean", dim),
                            fields.real("variance"));
}

std::unique_ptr<MiModel> GaussianMiMediator::row(const Eigen::VectorXd& x) const {
  check_datum_dimension(x, dim(), "the datum");
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(dim(), dim());
  MiBlock block = gaussian_mi_block(x, s_ * I, m_, a_ * I);
  std::vector<std::unique_ptr<Model>> blocks;
  blocks.push_back(std::move(block.block));
  return std::make_unique<MiModel>(std::vector<double>{block.log_weight}, std::move(blocks));
}

nlohmann::json GaussianMiMediator::to_json() const {
  return {{"mediator", "gaussian"},
          {"dim", dim()},
          {"likelihood_variance", s_},
          {"mean", std::vector<double>(m_.data(), m_.data() + m_.size())},
          {"variance", a_}};
}

// ---- Multinomial likelihood, Dirichlet(alpha) mediator -------------------------------------------

namespace {

// ModelError unless every x_d is a whole number >= 0 (`what` names x).
void check_counts(const Eigen::VectorXd& x, const std::string& what) {
  for (Eigen::Index d = 0; d < x.size(); ++d)
    if (!(x[d] >= 0.0) || x[d] != std::floor(x[d]) || !std::isfinite(x[d]))
      throw ModelError(what + ": coordinate " + std::to_string(d) + " (index " + std::to_string(d + 1) +
                       "): expected a count (a whole number >= 0), got " + detail::format_number(x[d]));
}

// log B(a) = sum_d log Gamma(a_d) - log Gamma(sum_d a_d).
double log_beta(const Eigen::VectorXd& a) {
  double sum = 0.0;
  for (Eigen::Index d = 0; d < a.size(); ++d) sum += std::lgamma(a[d]);
  return sum - std::lgamma(a.sum());
}

}  // namespace

MultinomialMiMediator::MultinomialMiMediator(Eigen::VectorXd alpha) : alpha_(std::move(alpha)) {
  if (alpha_.size() < 2)
    throw ModelError("multinomial mediator: a Dirichlet needs dimension >= 2, got " + std::to_string(alpha_.size()));
  for (Eigen::Index d = 0; d < alpha_.size(); ++d)
    if (!detail::is_positive_finite(alpha_[d]))
      throw ModelError("multinomial mediator: alpha[" + std::to_string(d) + "] must be a finite number > 0, got " +
                       detail::format_number(alpha_[d]));
}

MultinomialMiMediator MultinomialMiMediator::fit(long dim, double prior_alpha,
                                                 const std::vector<Eigen::VectorXd>& unlabeled, double lambda) {
  check_lambda(lambda);
  Eigen::VectorXd alpha = Eigen::VectorXd::Constant(dim, prior_alpha);
  if (!unlabeled.empty()) {
    for (std::size_t i = 0; i < unlabeled.size(); ++i) {
      try {
        if (unlabeled[i].size() == dim) check_counts(unlabeled[i], "unlabeled point " + std::to_string(i));
      } catch (const ModelError& error) {
        throw MiPointError(i, error.what());
      }
    }
    alpha += lambda * mean_of(unlabeled, dim, "unlabeled point");  // (lambda/n) sum_i x_i
  }
  return MultinomialMiMediator(std::move(alpha));
}

MultinomialMiMediator MultinomialMiMediator::from_json(const nlohmann::json& object) {
  long dim = 0;
  const detail::JsonFields fields = mediator_fields(object, "multinomial", {"mediator", "dim", "alpha"}, 2, &dim);
  return MultinomialMiMediator(json_vector(fields, "alpha", dim));
}

std::unique_ptr<MiModel> MultinomialMiMediator::row(const Eigen::VectorXd& counts) const {
  check_datum_dimension(counts, dim(), "the datum");
  check_counts(counts, "the datum");
  // a_x = x + (alpha + 1)/2;  lw_x = log C(x) + log B(a_x) - log B(alpha)/2.
  const Eigen::VectorXd a = counts + 0.5 * (alpha_.array() + 1.0).matrix();
  double log_coefficient = std::lgamma(counts.sum() + 1.0);
  for (Eigen::Index d = 0; d < counts.size(); ++d) log_coefficient -= std::lgamma(counts[d] + 1.0);
  const double log_weight = log_coefficient + log_beta(a) - 0.5 * log_beta(alpha_);
  std::vector<std::unique_ptr<Model>> blocks;
  blocks.push_back(std::make_unique<DirichletModel>(std::vector<double>(a.data(), a.data() + a.size())));
  return std::make_unique<MiModel>(std::vector<double>{log_weight}, std::move(blocks));
}

nlohmann::json MultinomialMiMediator::to_json() const {
  return {{"mediator", "multinomial"},
          {"dim", dim()},
          {"alpha", std::vector<double>(alpha_.data(), alpha_.data() + alpha_.size())}};
}

}  // namespace ppk
