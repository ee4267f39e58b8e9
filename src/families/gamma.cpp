// Gamma models over positive real vectors and their kernel (see gamma.hpp).
//
// JMLR 2004 section 3 (docs/design.md "Mathematics"): per dimension, with
// p(x) = x^(a - 1) exp(-x / b) / (Gamma(a) b^a),
//     integral over x > 0 of p(x)^rho p'(x)^rho dx
//         = integral of x^(a+ - 1) exp(-x / b+) dx / [Gamma(a) b^a Gamma(a') b'^a']^rho
//         = Gamma(a+) b+^a+ / [Gamma(a) b^a Gamma(a') b'^a']^rho,
// a+ = rho (a + a' - 2) + 1, 1/b+ = rho (1/b + 1/b'). Summed over dimensions in logs, with the
// per-model parts computed once by prepare() (gamma_integrals.hpp):
//     log k = sum_d [log Gamma(a+_d) - a+_d log(c_d + c'_d)] - N - N',
//     a+_d = h_d + h'_d,  h_d = rho (a_d - 1) + 1/2,  c_d = rho / b_d,  N = rho sum_d [log Gamma(a_d) + a_d log b_d].
#include "ppk/families/gamma.hpp"

#include <cmath>
#include <limits>

#include "families/gamma_integrals.hpp"
#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/families/exponential.hpp"

namespace ppk {

namespace {

const char* const kFamily = "gamma";

// Validates the parameters (FieldError on "dim", "shape" or "scale") and returns
// theta = (a_1 - 1, .., a_D - 1, -1/b_1, .., -1/b_D).
Eigen::VectorXd checked_natural_parameters(const std::vector<double>& shapes, const std::vector<double>& scales) {
  const long dim = static_cast<long>(shapes.size());
  detail::check_dimension(kFamily, dim, 1);
  if (scales.size() != shapes.size())
    throw detail::field_error(kFamily, "scale", "as many values as \"shape\" (" + std::to_string(dim) + ")",
                              std::to_string(scales.size()) + " values");
  detail::check_positive_entries(kFamily, "shape", shapes);
  detail::check_positive_entries(kFamily, "scale", scales);
  Eigen::VectorXd theta(2 * dim);
  for (long d = 0; d < dim; ++d) {
    theta[d] = shapes[d] - 1.0;
    theta[dim + d] = -1.0 / scales[d];
  }
  return theta;
}

}  // namespace

template <class Archive>
void GammaParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", static_cast<long>(shape.size()), 1, detail::kMaxDimension);
  archive.reals("shape", shape, dim);
  archive.reals("scale", scale, dim);
}

struct GammaModel::Impl : GammaParameters {
  double log_partition = 0.0;  // K(theta) = sum_d [log Gamma(a_d) + a_d log b_d]
  // Set by prepare():
  double rho = 0.0;
  std::vector<double> half_shapes;  // h_d = rho (a_d - 1) + 1/2 > 0
  std::vector<double> rho_rates;    // c_d = rho / b_d
  double log_normalizer = 0.0;      // N = rho sum_d [log Gamma(a_d) + a_d log b_d]
};

GammaModel::GammaModel(Parameters parameters)
    : SamplableExponentialFamilyModel(checked_natural_parameters(parameters.shape, parameters.scale)),
      impl_(std::make_unique<Impl>()) {
  static_cast<GammaParameters&>(*impl_) = std::move(parameters);
  impl_->log_partition = log_partition(natural_parameters());
}

GammaModel::~GammaModel() = default;

const std::vector<double>& GammaModel::shapes() const { return impl_->shape; }
const std::vector<double>& GammaModel::scales() const { return impl_->scale; }
const GammaParameters& GammaModel::parameters() const { return *impl_; }

const FamilyInfo& GammaModel::family() const { return gamma_family(); }

SampleSpace GammaModel::sample_space() const { return {"positive real vectors", static_cast<long>(impl_->shape.size())}; }

void GammaModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.half_shapes = detail::half_shapes(kFamily, "shape", m.shape, params.rho);  // the domain check
  m.rho = params.rho;
  m.rho_rates.resize(m.scale.size());
  m.log_normalizer = 0.0;
  for (std::size_t d = 0; d < m.shape.size(); ++d) {
    m.rho_rates[d] = m.rho / m.scale[d];
    m.log_normalizer += m.rho * (detail::log_gamma(m.shape[d]) + m.shape[d] * std::log(m.scale[d]));
  }
}

double GammaModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const std::size_t dim = a.shape.size();
  if (&other.family() == &exponential_family()) {
    // The exponential model of scales b'_d is the gamma model of shapes 1: h'_d = 1/2, c'_d = rho / b'_d,
    // N' = rho sum_d log b'_d (log Gamma(1) = 0).
    const std::vector<double>& scales = static_cast<const ExponentialModel&>(other).scales();
    if (a.rho <= 0.0 || scales.size() != dim) detail::throw_unprepared_pair(kFamily);
    double log_k = -a.log_normalizer;
    for (std::size_t d = 0; d < dim; ++d)
      log_k += detail::log_gamma_integral(a.half_shapes[d] + 0.5, a.rho_rates[d] + a.rho / scales[d]) -
               a.rho * std::log(scales[d]);
    return log_k;
  }
  const Impl& b = *static_cast<const GammaModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || b.shape.size() != dim) detail::throw_unprepared_pair(kFamily);
  double log_k = -a.log_normalizer - b.log_normalizer;
  for (std::size_t d = 0; d < dim; ++d)
    log_k += detail::log_gamma_integral(a.half_shapes[d] + b.half_shapes[d], a.rho_rates[d] + b.rho_rates[d]);
  return log_k;
}

// K(theta) = sum_d [log Gamma(a_d) + a_d log b_d] with a_d = theta_d + 1, b_d = -1/theta_{D+d}.
double GammaModel::log_partition(const Eigen::VectorXd& theta) const {
  const Eigen::Index dim = theta.size() / 2;
  double sum = 0.0;
  for (Eigen::Index d = 0; d < dim; ++d)
    sum += detail::log_gamma(theta[d] + 1.0) - (theta[d] + 1.0) * std::log(-theta[dim + d]);
  return sum;
}

// Theta: every shape a_d = theta_d + 1 > 0 and every rate 1/b_d = -theta_{D+d} > 0.
bool GammaModel::in_natural_domain(const Eigen::VectorXd& theta) const {
  const Eigen::Index dim = static_cast<Eigen::Index>(impl_->shape.size());
  return theta.size() == 2 * dim && (theta.head(dim).array() > -1.0 && theta.head(dim).array().isFinite()).all() &&
         (theta.tail(dim).array() < 0.0 && theta.tail(dim).array().isFinite()).all();
}

// A(x) = 0: exp(2 rho A(x)) = 1 = exp(A(x)) at every rho (eta = 1, c = 1).
std::optional<MeasureScaling> GammaModel::measure_scaling(double /*rho*/) const { return MeasureScaling{}; }

// x_d = G_d / r_d, G_d ~ Gamma(rho (a_d - 1) + 1, 1) and r_d = rho / b_d: the tilted model's shape
// (rho theta)_d + 1 and rate -(rho theta)_{D+d}. Drawn in logs (SampleGenerator::log_gamma_variate).
void GammaModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Eigen::VectorXd tilted = tilted_natural_parameters(rho);
  const Eigen::Index dim = samples.rows();
  const Eigen::VectorXd shapes = tilted.head(dim).array() + 1.0, log_rates = (-tilted.tail(dim)).array().log();
  for (Eigen::Index s = 0; s < samples.cols(); ++s)
    for (Eigen::Index d = 0; d < dim; ++d)
      samples(d, s) = detail::positive_exp(generator.log_gamma_variate(shapes[d]) - log_rates[d]);
}

// log p(x) = sum_d [(a_d - 1) log x_d - x_d / b_d] - K(theta), -inf outside (0, inf)^D.
double GammaModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  double log_p = -m.log_partition;
  for (std::size_t d = 0; d < m.shape.size(); ++d) {
    const double x_d = x[static_cast<Eigen::Index>(d)];
    if (!(x_d > 0.0)) return -std::numeric_limits<double>::infinity();
    log_p += (m.shape[d] - 1.0) * std::log(x_d) - x_d / m.scale[d];
  }
  return log_p;
}

const FamilyInfo& gamma_family() {
  static const FamilyInfo info = [] {
    FamilyInfo family = make_family<GammaModel>(kFamily, 6);
    // An exponential model of scales b is the gamma model of shapes 1 and scales b (JMLR 2004 section 3),
    // and GammaModel::log_kernel takes it as its other model.
    family.kernels_with = {"exponential"};
    return family;
  }();
  return info;
}

}  // namespace ppk
