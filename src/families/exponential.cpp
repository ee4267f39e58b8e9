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

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

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

template <class Archive>
void ExponentialParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", static_cast<long>(scale.size()), 1, detail::kMaxDimension);
  archive.reals("scale", scale, dim);
}

struct ExponentialModel::Impl : ExponentialParameters {
  // Set by prepare():
  double rho = 0.0;
  std::vector<double> rho_rates;  // c_d = rho / b_d
  double log_normalizer = 0.0;    // L = rho sum_d log b_d
};

ExponentialModel::ExponentialModel(Parameters parameters)
    : SamplableExponentialFamilyModel(checked_natural_parameters(parameters.scale)), impl_(std::make_unique<Impl>()) {
  static_cast<ExponentialParameters&>(*impl_) = std::move(parameters);
}

ExponentialModel::~ExponentialModel() = default;

const std::vector<double>& ExponentialModel::scales() const { return impl_->scale; }
const ExponentialParameters& ExponentialModel::parameters() const { return *impl_; }

const FamilyInfo& ExponentialModel::family() const { return exponential_family(); }

SampleSpace ExponentialModel::sample_space() const {
  return {"positive real vectors", static_cast<long>(impl_->scale.size())};
}

void ExponentialModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  m.rho_rates.resize(m.scale.size());
  m.log_normalizer = 0.0;
  for (std::size_t d = 0; d < m.scale.size(); ++d) {
    m.rho_rates[d] = m.rho / m.scale[d];
    m.log_normalizer += m.rho * std::log(m.scale[d]);
  }
}

double ExponentialModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const ExponentialModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.scale.size() != b.scale.size()) detail::throw_unprepared_pair(kFamily);
  double log_rate_sum = 0.0;
  for (std::size_t d = 0; d < a.scale.size(); ++d) log_rate_sum += std::log(a.rho_rates[d] + b.rho_rates[d]);
  return -log_rate_sum - a.log_normalizer - b.log_normalizer;
}

// K(theta) = sum_d log b_d = -sum_d log(-theta_d).
double ExponentialModel::log_partition(const Eigen::VectorXd& theta) const { return -(-theta.array()).log().sum(); }

bool ExponentialModel::in_natural_domain(const Eigen::VectorXd& theta) const {
  return theta.size() == static_cast<Eigen::Index>(impl_->scale.size()) &&
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
  const std::vector<double>& b = impl_->scale;
  double log_p = 0.0;
  for (std::size_t d = 0; d < b.size(); ++d) {
    const double x_d = x[static_cast<Eigen::Index>(d)];
    if (!(x_d > 0.0)) return -std::numeric_limits<double>::infinity();
    log_p -= x_d / b[d] + std::log(b[d]);
  }
  return log_p;
}

const FamilyInfo& exponential_family() {
  static const FamilyInfo info = make_family<ExponentialModel>(kFamily, 5);
  return info;
}

}  // namespace ppk
