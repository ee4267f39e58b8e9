// Dirichlet models over probability vectors and their kernel (see dirichlet.hpp).
//
// JMLR 2004 section 3 (docs/design.md "Mathematics"): with p(x) = prod_d x_d^(a_d - 1) / B(a) on the simplex,
//     integral of p(x)^rho p'(x)^rho dx = integral of prod_d x_d^(a+_d - 1) dx / (B(a) B(a'))^rho
//                                       = B(a+) / (B(a) B(a'))^rho,
// a+_d = rho (a_d + a'_d - 2) + 1, log B(v) = sum_d log Gamma(v_d) - log Gamma(sum_d v_d). In logs,
// with the per-model parts computed once by prepare() (gamma_integrals.hpp):
//     log k = sum_d log Gamma(h_d + h'_d) - log Gamma(H + H') - N - N',
//     h_d = rho (a_d - 1) + 1/2,  H = sum_d h_d,  N = rho log B(a).
#include "ppk/families/dirichlet.hpp"

#include <cmath>
#include <limits>

#include "families/gamma_integrals.hpp"
#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

namespace {

const char* const kFamily = "dirichlet";

// log B(v) = sum_d log Gamma(v_d) - log Gamma(sum_d v_d), every v_d > 0.
double log_beta(const Eigen::Ref<const Eigen::VectorXd>& v) {
  double log_gammas = 0.0;
  for (Eigen::Index d = 0; d < v.size(); ++d) log_gammas += detail::log_gamma(v[d]);
  return log_gammas - detail::log_gamma(v.sum());
}

// Validates alpha (FieldError on "dim" or "alpha") and returns theta_d = a_d - 1.
Eigen::VectorXd checked_natural_parameters(const std::vector<double>& alpha) {
  detail::check_dimension(kFamily, static_cast<long>(alpha.size()), 2);
  detail::check_positive_entries(kFamily, "alpha", alpha);
  return Eigen::Map<const Eigen::VectorXd>(alpha.data(), static_cast<Eigen::Index>(alpha.size())).array() - 1.0;
}

}  // namespace

template <class Archive>
void DirichletParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", static_cast<long>(alpha.size()), 2, detail::kMaxDimension);
  archive.reals("alpha", alpha, dim);
}

struct DirichletModel::Impl : DirichletParameters {
  double log_partition = 0.0;  // K(theta) = log B(a)
  // Set by prepare():
  double rho = 0.0;
  std::vector<double> half_shapes;  // h_d = rho (a_d - 1) + 1/2 > 0
  double half_shape_sum = 0.0;      // H = sum_d h_d
  double log_normalizer = 0.0;      // N = rho log B(a)
};

DirichletModel::DirichletModel(Parameters parameters)
    : SamplableExponentialFamilyModel(checked_natural_parameters(parameters.alpha)), impl_(std::make_unique<Impl>()) {
  static_cast<DirichletParameters&>(*impl_) = std::move(parameters);
  impl_->log_partition = log_partition(natural_parameters());
}

DirichletModel::~DirichletModel() = default;

const std::vector<double>& DirichletModel::alpha() const { return impl_->alpha; }
const DirichletParameters& DirichletModel::parameters() const { return *impl_; }

const FamilyInfo& DirichletModel::family() const { return dirichlet_family(); }

SampleSpace DirichletModel::sample_space() const {
  return {"probability vectors", static_cast<long>(impl_->alpha.size())};
}

void DirichletModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.half_shapes = detail::half_shapes(kFamily, "alpha", m.alpha, params.rho);  // the domain check
  m.rho = params.rho;
  m.half_shape_sum = 0.0;
  for (double h : m.half_shapes) m.half_shape_sum += h;
  const Eigen::Map<const Eigen::VectorXd> alpha(m.alpha.data(), static_cast<Eigen::Index>(m.alpha.size()));
  m.log_normalizer = m.rho * log_beta(alpha);
}

double DirichletModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const DirichletModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.alpha.size() != b.alpha.size()) detail::throw_unprepared_pair(kFamily);
  double log_k = -detail::log_gamma(a.half_shape_sum + b.half_shape_sum) - a.log_normalizer - b.log_normalizer;
  for (std::size_t d = 0; d < a.alpha.size(); ++d) log_k += detail::log_gamma(a.half_shapes[d] + b.half_shapes[d]);
  return log_k;
}

// K(theta) = log B(theta + 1).
double DirichletModel::log_partition(const Eigen::VectorXd& theta) const { return log_beta(theta.array() + 1.0); }

// Theta: every a_d = theta_d + 1 > 0.
bool DirichletModel::in_natural_domain(const Eigen::VectorXd& theta) const {
  return theta.size() == static_cast<Eigen::Index>(impl_->alpha.size()) &&
         (theta.array() > -1.0 && theta.array().isFinite()).all();
}

// A(x) = 0 (Lebesgue measure on the simplex): exp(2 rho A(x)) = 1 = exp(A(x)) at every rho (eta = 1, c = 1).
std::optional<MeasureScaling> DirichletModel::measure_scaling(double /*rho*/) const { return MeasureScaling{}; }

// x = (G_1, .., G_D) / sum_d G_d with independent G_d ~ Gamma(rho (a_d - 1) + 1, 1) (the tilted alpha,
// (rho theta)_d + 1): normalised independent gammas are Dirichlet. In logs, x_d = exp(log G_d -
// logsumexp_d log G_d), so that small shapes do not underflow every G_d to 0.
void DirichletModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Eigen::VectorXd shapes = tilted_natural_parameters(rho).array() + 1.0;
  std::vector<double> log_gammas(static_cast<std::size_t>(shapes.size()));
  for (Eigen::Index s = 0; s < samples.cols(); ++s) {
    for (Eigen::Index d = 0; d < shapes.size(); ++d)
      log_gammas[static_cast<std::size_t>(d)] = generator.log_gamma_variate(shapes[d]);
    const double log_total = detail::log_sum_exp(log_gammas);
    for (Eigen::Index d = 0; d < shapes.size(); ++d)
      samples(d, s) = detail::positive_exp(log_gammas[static_cast<std::size_t>(d)] - log_total);
  }
}

// log p(x) = sum_d (a_d - 1) log x_d - log B(a), -inf where an x_d <= 0.
double DirichletModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  double log_p = -m.log_partition;
  for (std::size_t d = 0; d < m.alpha.size(); ++d) {
    const double x_d = x[static_cast<Eigen::Index>(d)];
    if (!(x_d > 0.0)) return -std::numeric_limits<double>::infinity();
    log_p += (m.alpha[d] - 1.0) * std::log(x_d);
  }
  return log_p;
}

const FamilyInfo& dirichlet_family() {
  static const FamilyInfo info = make_family<DirichletModel>(kFamily, 7);
  return info;
}

}  // namespace ppk
