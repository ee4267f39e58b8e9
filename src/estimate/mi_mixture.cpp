// The mediator of the diagonal mixture MI kernel (see mi_mixture.hpp; Seeger NIPS 2001, 2.1-2.2).
#include "ppk/estimate/mi_mixture.hpp"

#include <cmath>
#include <string>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "ppk/core/matrix_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/families/gaussian.hpp"
#include "ppk/estimate/estimate_mixture.hpp"

namespace ppk {
namespace {

const char* const kFamily = "mixture mediator";

ModelError component_error(std::size_t s, const std::string& what) {
  return ModelError(std::string(kFamily) + " components[" + std::to_string(s) + "]: " + what);
}

}  // namespace

MixtureMediator::MixtureMediator(std::vector<MixtureMediatorComponent> components, double lambda, double prior_alpha)
    : components_(std::move(components)), lambda_(lambda), prior_alpha_(prior_alpha), count_(0.0) {
  if (components_.empty()) throw ModelError(std::string(kFamily) + ": expected at least one component");
  if (!(lambda > 0.0) || !std::isfinite(lambda))
    throw ModelError(std::string(kFamily) +
                     " field \"lambda\": expected a finite number > 0 (the prior over the "
                     "means is flat, so lambda = 0 leaves no mediator), got " +
                     detail::format_number(lambda));
  if (!(prior_alpha > 0.0) || !std::isfinite(prior_alpha))
    throw ModelError(std::string(kFamily) + " field \"prior_alpha\": expected a finite number > 0, got " +
                     detail::format_number(prior_alpha));
  const Eigen::Index dim = components_.front().mean.size();
  if (dim < 1) throw component_error(0, "the mean is empty");
  for (std::size_t s = 0; s < components_.size(); ++s) {
    MixtureMediatorComponent& c = components_[s];
    if (!(c.size > 0.0) || !std::isfinite(c.size))
      throw component_error(s,
                            "expected a size N_s > 0 (the component's total responsibility; fewer components if "
                            "one is empty), got " +
                                detail::format_number(c.size));
    if (c.mean.size() != dim)
      throw component_error(
          s, "the mean has " + std::to_string(c.mean.size()) + " entries, the first component's " + std::to_string(dim));
    if (!c.mean.allFinite()) throw component_error(s, "the mean must be finite");
    if (c.covariance.rows() != dim || c.covariance.cols() != dim)
      throw component_error(s, "expected a " + std::to_string(dim) + " x " + std::to_string(dim) + " covariance");
    c.covariance = 0.5 * (c.covariance + c.covariance.transpose());
    if (!c.covariance.allFinite() || Eigen::LLT<Eigen::MatrixXd>(c.covariance).info() != Eigen::Success ||
        (c.covariance.diagonal().array() <= 0.0).any())
      throw component_error(s, "the covariance must be symmetric positive definite");
    count_ += c.size;
  }
}

MixtureMediator MixtureMediator::from_responsibilities(const Eigen::MatrixXd& x, const Eigen::MatrixXd& responsibilities,
                                                       const std::vector<Eigen::MatrixXd>& covariances, double lambda,
                                                       double prior_alpha) {
  std::vector<MixtureMediatorComponent> components(covariances.size());
  for (std::size_t s = 0; s < covariances.size(); ++s) {
    const auto r = responsibilities.col(static_cast<Eigen::Index>(s));
    components[s].size = r.sum();
    components[s].mean = x.transpose() * r / components[s].size;
    components[s].covariance = covariances[s];
  }
  return MixtureMediator(std::move(components), lambda, prior_alpha);
}

std::size_t MixtureMediator::size() const { return components_.size(); }
long MixtureMediator::dim() const { return static_cast<long>(components_.front().mean.size()); }
double MixtureMediator::lambda() const { return lambda_; }
double MixtureMediator::prior_alpha() const { return prior_alpha_; }
const MixtureMediatorComponent& MixtureMediator::component(std::size_t s) const { return components_.at(s); }

double MixtureMediator::expected_weight(std::size_t s) const {
  const double k = static_cast<double>(components_.size());
  return (prior_alpha_ + lambda_ * components_.at(s).size / count_) / (k * prior_alpha_ + lambda_);
}

Eigen::MatrixXd MixtureMediator::mean_covariance(std::size_t s) const {
  return components_.at(s).covariance * (count_ / (lambda_ * components_.at(s).size));
}

std::unique_ptr<MiModel> MixtureMediator::row(const Eigen::VectorXd& x) const {
  if (x.size() != dim())
    throw ModelError("the datum has dimension " + std::to_string(x.size()) +
                     ", but the mixture mediator's dimension is " + std::to_string(dim()));
  std::vector<double> log_weights;
  std::vector<std::unique_ptr<Model>> blocks;
  for (std::size_t s = 0; s < components_.size(); ++s) {
    MiBlock block = gaussian_mi_block(x, components_[s].covariance, components_[s].mean, mean_covariance(s));
    log_weights.push_back(block.log_weight + 0.5 * std::log(expected_weight(s)));
    blocks.push_back(std::move(block.block));
  }
  return std::make_unique<MiModel>(std::move(log_weights), std::move(blocks));
}

nlohmann::json MixtureMediator::to_json() const {
  nlohmann::json components = nlohmann::json::array();
  for (const MixtureMediatorComponent& c : components_)
    components.push_back({{"size", c.size},
                          {"mean", std::vector<double>(c.mean.data(), c.mean.data() + c.mean.size())},
                          {"covariance", detail::json_rows(c.covariance)}});
  return {{"mediator", "mixture"},
          {"dim", dim()},
          {"lambda", lambda_},
          {"prior_alpha", prior_alpha_},
          {"components", std::move(components)}};
}

MixtureMediator MixtureMediator::from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"mediator", "dim", "lambda", "prior_alpha", "components"});
  if (fields.required("mediator") != "mixture") throw fields.invalid("mediator", "\"mixture\"");
  const long dim = fields.whole_number("dim", 1, detail::kMaxDimension);
  const nlohmann::json& list = fields.required("components");
  if (!list.is_array() || list.empty()) throw fields.invalid("components", "a non-empty array of components");
  std::vector<MixtureMediatorComponent> components;
  for (std::size_t s = 0; s < list.size(); ++s) {
    const detail::JsonFields component(list[s], std::string(kFamily) + " components[" + std::to_string(s) + "]",
                                       {"size", "mean", "covariance"});
    MixtureMediatorComponent c;
    c.size = component.real("size");
    const std::vector<double> mean = component.reals("mean");
    if (static_cast<long>(mean.size()) != dim)
      throw component.invalid("mean", std::to_string(dim) + " numbers (\"dim\" is " + std::to_string(dim) + ")");
    c.mean = Eigen::Map<const Eigen::VectorXd>(mean.data(), dim);
    c.covariance = detail::json_matrix(component, "covariance");
    components.push_back(std::move(c));
  }
  return MixtureMediator(std::move(components), fields.real("lambda"), fields.real("prior_alpha"));
}

MixtureMediator MixtureMediator::fit(long dim, const MixtureFitOptions& options,
                                     const std::vector<Eigen::VectorXd>& unlabeled, double lambda, double prior_alpha) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(unlabeled.size()), dim);
  for (std::size_t i = 0; i < unlabeled.size(); ++i) {
    if (unlabeled[i].size() != dim)
      throw MiPointError(i, "unlabeled point " + std::to_string(i) + " has dimension " +
                                std::to_string(unlabeled[i].size()) + ", but the mediator's dimension is " +
                                std::to_string(dim));
    x.row(static_cast<Eigen::Index>(i)) = unlabeled[i].transpose();
  }
  const GaussianMixtureFit fit = fit_gaussian_mixture(x, options);
  std::vector<Eigen::MatrixXd> covariances;
  for (std::size_t s = 0; s < fit.model->size(); ++s)
    covariances.push_back(static_cast<const GaussianModel&>(fit.model->component(s)).covariance());
  return from_responsibilities(x, fit.responsibilities, covariances, lambda, prior_alpha);
}

}  // namespace ppk
