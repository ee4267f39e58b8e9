// Exponential models over positive real vectors and their kernel (see exponential.hpp).
//
// JMLR 2004 section 3 (docs/design.md "Mathematics", the gamma kernel at shape 1): per dimension, with
// p(x) = exp(-x / b) / b,
//     integral over x > 0 of p(x)^rho p'(x)^rho dx = (b b')^-rho integral of exp(-rho (1/b + 1/b') x) dx
//                                                = 1 / (rho (1/b + 1/b') (b b')^rho),
// finite at every rho > 0. Summed over dimensions in logs:
//     log k = -sum_d log(c_d + c'_d) - L - L',   c_d = rho / b_d,   L = rho sum_d log b_d,
// with each model's c_d and L computed once by prepare().
#include "ppk/families/exponential.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/model_fields.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

namespace {

const char* const kFamily = "exponential";

// Validates the scales (FieldError on "dim" or "scale") and returns theta_d = -1/b_d.
Eigen::VectorXd checked_natural_parameters(const std::vector<double>& scales) {
  detail::check_dimension(kFamily, static_cast<long>(scales.size()), 1);
  detail::check_positive_entries(kFamily, "scale", scales);
  Eigen::VectorXd theta(static_cast<Eigen::Index>(scales.size()));
  for (std::size_t d = 0; d < scales.size(); ++d) theta[static_cast<Eigen::Index>(d)] = -1.0 / scales[d];
  return theta;
}

}  // namespace

struct ExponentialModel::Impl {
  std::vector<double> scales;  // b_d
  // Set by prepare():
  double rho = 0.0;
  std::vector<double> rho_rates;  // c_d = rho / b_d
  double log_normalizer = 0.0;    // L = rho sum_d log b_d
};

ExponentialModel::ExponentialModel(std::vector<double> scales)
    : SamplableExponentialFamilyModel(checked_natural_parameters(scales)), impl_(std::make_unique<Impl>()) {
  impl_->scales = std::move(scales);
}

ExponentialModel::~ExponentialModel() = default;

const std::vector<double>& ExponentialModel::scales() const { return impl_->scales; }

const FamilyInfo& ExponentialModel::family() const { return exponential_family(); }

SampleSpace ExponentialModel::sample_space() const {
  return {"positive real vectors", static_cast<long>(impl_->scales.size())};
}

void ExponentialModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  m.rho_rates.resize(m.scales.size());
  m.log_normalizer = 0.0;
  for (std::size_t d = 0; d < m.scales.size(); ++d) {
    m.rho_rates[d] = m.rho / m.scales[d];
    m.log_normalizer += m.rho * std::log(m.scales[d]);
  }
}

double ExponentialModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const ExponentialModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.scales.size() != b.scales.size()) detail::throw_unprepared_pair(kFamily);
  double log_rate_sum = 0.0;
  for (std::size_t d = 0; d < a.scales.size(); ++d) log_rate_sum += std::log(a.rho_rates[d] + b.rho_rates[d]);
  return -log_rate_sum - a.log_normalizer - b.log_normalizer;
}

// K(theta) = sum_d log b_d = -sum_d log(-theta_d).
double ExponentialModel::log_partition(const Eigen::VectorXd& theta) const { return -(-theta.array()).log().sum(); }

bool ExponentialModel::in_natural_domain(const Eigen::VectorXd& theta) const {
  return theta.size() == static_cast<Eigen::Index>(impl_->scales.size()) &&
         (theta.array() < 0.0 && theta.array().isFinite()).all();
}

// A(x) = 0: exp(2 rho A(x)) = 1 = exp(A(x)) at every rho (eta = 1, c = 1).
std::optional<MeasureScaling> ExponentialModel::measure_scaling(double /*rho*/) const { return MeasureScaling{}; }

// x_d = G_d / r_d, G_d ~ Gamma(1, 1) (a standard exponential) and r_d = -(rho theta)_d = rho / b_d the
// tilted rate.
void ExponentialModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Eigen::VectorXd log_rates = (-tilted_natural_parameters(rho)).array().log();
  for (Eigen::Index s = 0; s < samples.cols(); ++s)
    for (Eigen::Index d = 0; d < samples.rows(); ++d)
      samples(d, s) = std::exp(generator.log_gamma_variate(1.0) - log_rates[d]);
}

// log p(x) = -sum_d (x_d / b_d + log b_d), -inf outside (0, inf)^D.
double ExponentialModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const std::vector<double>& b = impl_->scales;
  double log_p = 0.0;
  for (std::size_t d = 0; d < b.size(); ++d) {
    const double x_d = x[static_cast<Eigen::Index>(d)];
    if (!(x_d > 0.0)) return -std::numeric_limits<double>::infinity();
    log_p -= x_d / b[d] + std::log(b[d]);
  }
  return log_p;
}

// Row fields: D, then the scales.
void ExponentialModel::encode_fields(RowWriter& out) const {
  out.real(static_cast<double>(impl_->scales.size()));
  out.reals(impl_->scales);
}

void ExponentialModel::to_json(nlohmann::json& out) const {
  out = nlohmann::json::object();
  out["family"] = kFamily;
  out["scale"] = impl_->scales;
}

namespace {

std::unique_ptr<Model> decode_exponential(RowReader& fields) {
  const long dim = fields.integer("dim", 1, detail::kMaxDimension);
  const long scale_first = fields.next_index();
  std::vector<double> scales = fields.reals("scale", static_cast<std::size_t>(dim));
  return detail::build_from_row({{"scale", scale_first, dim}},
                                [&] { return std::make_unique<ExponentialModel>(std::move(scales)); });
}

std::unique_ptr<Model> exponential_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"scale"});
  return std::make_unique<ExponentialModel>(fields.reals("scale"));
}

}  // namespace

const FamilyInfo& exponential_family() {
  static const FamilyInfo info{kFamily, 5, &decode_exponential, &exponential_from_json};
  return info;
}

}  // namespace ppk
