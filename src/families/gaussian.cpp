// Gaussian models and their probability product kernel (see gaussian.hpp).
//
// The kernel is JMLR 2004 eq. 5, evaluated in the equivalent covariance-sum form. With
// P = S^-1 and P' = S'^-1 (S, S' the covariances), |P + P'| = |S + S'| / (|S| |S'|) and
//     mu'P mu + mu''P' mu' - m+' (P + P')^-1 m+ = (mu - mu')' (S + S')^-1 (mu - mu'),
// so eq. 5 is
//     log k = (1-2rho)D/2 log 2pi - D/2 log rho + (1-rho)/2 (log|S| + log|S'|)
//             - 1/2 log|S + S'| - rho/2 (mu - mu')' (S + S')^-1 (mu - mu').
// This form needs no inverses, and its quadratic term does not cancel between large numbers
// as mu'P mu + mu''P' mu' - m+' S+ m+ does when the means are far from the origin. Each
// model contributes the per-example part (the first three terms, split evenly between the
// pair); a pair costs one factorisation of S + S' (a sum of vectors for isotropic and
// diagonal pairs, a Cholesky factorisation when a full covariance is involved).
#include "ppk/families/gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

using detail::element_error;
using detail::field_error;
using detail::format_number;

namespace {

const char* const kFamily = "gaussian";
// A full covariance is stored densely (D x D doubles) and its lower triangle takes
// D(D+1)/2 row indices; beyond this size a typo would become a huge allocation.
constexpr long kMaxFullDimension = 5000;
const double kLog2Pi = std::log(2.0 * 3.14159265358979323846);
const double kLog2 = std::log(2.0);

void check_mean(const Eigen::VectorXd& mean) {
  if (mean.size() < 1 || mean.size() > detail::kMaxDimension)
    throw field_error(kFamily, "mean", "between 1 and 10^8 values", std::to_string(mean.size()) + " values");
  for (Eigen::Index d = 0; d < mean.size(); ++d)
    if (!std::isfinite(mean[d])) throw element_error(kFamily, "mean", d, "a finite number", mean[d]);
}

}  // namespace

template <class Archive>
void GaussianParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", static_cast<long>(mean.size()), 1, detail::kMaxDimension);
  long form_index = static_cast<long>(form) - 1;
  archive.one_of("form", form_index, {"var", "diag", "cov"});
  form = static_cast<CovarianceForm>(form_index + 1);
  if (form == CovarianceForm::full) archive.at_most(dim, kMaxFullDimension, "with a full covariance (form 3)");
  archive.reals("mean", mean, dim);
  switch (form) {
    case CovarianceForm::isotropic: archive.real("var", variance); break;
    case CovarianceForm::diagonal: archive.reals("diag", variances, dim); break;
    case CovarianceForm::full: archive.symmetric_matrix("cov", covariance, dim); break;
  }
}

struct GaussianModel::Impl : GaussianParameters {
  Eigen::MatrixXd cholesky;  // full: lower-triangular L with L L' = S
  double log_det = 0.0;      // log |S|
  // Set by prepare():
  double rho = 0.0;
  // This model's share of log k: (1-2rho)D/4 log 2pi - D/4 log rho + (1-rho)/2 log|S|.
  double log_scale = 0.0;

  long dim() const { return static_cast<long>(mean.size()); }

  // Adds S to `sum`.
  void add_covariance_to(Eigen::Ref<Eigen::MatrixXd> sum) const {
    switch (form) {
      case CovarianceForm::isotropic: sum.diagonal().array() += variance; break;
      case CovarianceForm::diagonal: sum.diagonal() += variances; break;
      case CovarianceForm::full: sum += covariance; break;
    }
  }

  // Calls f with the diagonal of S as an Eigen array expression (no allocation).
  template <class F>
  double with_variances(F f) const {
    if (form == CovarianceForm::isotropic) return f(Eigen::ArrayXd::Constant(mean.size(), variance));
    return f(variances.array());
  }

  // log k for two isotropic models of one dimension, prepared with one rho. S + S' = (v + v') I:
  // the RBF case. With equal variances (fitted with a fixed --var), log|S + S'| = D log 2 + log|S|
  // needs no logarithm per pair.
  // Both prepared for one rho (prepare() sets rho > 0) over one dimension.
  bool prepared_with(const Impl& b) const { return rho > 0.0 && rho == b.rho && mean.size() == b.mean.size(); }
  double isotropic_log_kernel(const Impl& b) const {
    const double sum = variance + b.variance;
    const double d = static_cast<double>(dim());
    const double log_det_sum = variance == b.variance ? d * kLog2 + log_det : d * std::log(sum);
    const double pair_terms = -0.5 * (log_det_sum + rho * (mean - b.mean).squaredNorm() / sum);
    return log_scale + b.log_scale + pair_terms;
  }
};

namespace {

// -1/2 log|S + S'| - rho/2 (mu - mu')' (S + S')^-1 (mu - mu') for diagonal S and S':
// -1/2 sum_d [log(v_d + v'_d) + rho (mu_d - mu'_d)^2 / (v_d + v'_d)].
template <class VarianceA, class VarianceB>
double diagonal_pair_terms(const Eigen::VectorXd& mean_a, const VarianceA& var_a, const Eigen::VectorXd& mean_b,
                           const VarianceB& var_b, double rho) {
  const auto sum = var_a + var_b;
  return -0.5 * (sum.log() + rho * (mean_a - mean_b).array().square() / sum).sum();
}

}  // namespace

GaussianModel::GaussianModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  const Eigen::VectorXd& mean = parameters.mean;
  check_mean(mean);
  const Eigen::Index dim = mean.size();
  double log_det = 0.0;
  switch (parameters.form) {
    case CovarianceForm::isotropic:
      if (!detail::is_positive_finite(parameters.variance))
        throw field_error(kFamily, "var", "a positive finite number", format_number(parameters.variance));
      log_det = static_cast<double>(dim) * std::log(parameters.variance);
      break;
    case CovarianceForm::diagonal: {
      const Eigen::VectorXd& variances = parameters.variances;
      if (variances.size() != dim)
        throw field_error(kFamily, "diag", std::to_string(dim) + " variances (one per mean entry)",
                          std::to_string(variances.size()));
      for (Eigen::Index d = 0; d < variances.size(); ++d)
        if (!detail::is_positive_finite(variances[d]))
          throw element_error(kFamily, "diag", d, "a positive finite number", variances[d]);
      log_det = variances.array().log().sum();
      break;
    }
    case CovarianceForm::full: {
      Eigen::MatrixXd& covariance = parameters.covariance;
      if (dim > kMaxFullDimension)
        throw field_error(kFamily, "cov",
                          "a dimension of at most " + std::to_string(kMaxFullDimension) + " for a full covariance",
                          std::to_string(dim));
      if (covariance.rows() != dim || covariance.cols() != dim)
        throw field_error(kFamily, "cov",
                          "a " + std::to_string(dim) + " x " + std::to_string(dim) + " matrix (D = the mean's length)",
                          std::to_string(covariance.rows()) + " x " + std::to_string(covariance.cols()));
      detail::check_symmetric(kFamily, "cov", covariance);
      covariance = (0.5 * (covariance + covariance.transpose())).eval();  // eval: the sum reads covariance
      Eigen::LLT<Eigen::MatrixXd> llt(covariance);
      log_det = llt.info() == Eigen::Success ? 2.0 * llt.matrixLLT().diagonal().array().log().sum() : std::nan("");
      if (!std::isfinite(log_det))
        throw field_error(kFamily, "cov", "a symmetric positive definite matrix (its Cholesky factorisation failed)");
      impl_->cholesky = llt.matrixL();
      break;
    }
  }
  // Only the form's own covariance field is kept.
  if (parameters.form != CovarianceForm::isotropic) parameters.variance = 0.0;
  if (parameters.form != CovarianceForm::diagonal) parameters.variances.resize(0);
  if (parameters.form != CovarianceForm::full) parameters.covariance.resize(0, 0);
  static_cast<GaussianParameters&>(*impl_) = std::move(parameters);
  impl_->log_det = log_det;
}

GaussianModel::~GaussianModel() = default;

std::unique_ptr<GaussianModel> GaussianModel::isotropic(Eigen::VectorXd mean, double variance) {
  return std::make_unique<GaussianModel>(Parameters{std::move(mean), CovarianceForm::isotropic, variance, {}, {}});
}

std::unique_ptr<GaussianModel> GaussianModel::diagonal(Eigen::VectorXd mean, Eigen::VectorXd variances) {
  return std::make_unique<GaussianModel>(
      Parameters{std::move(mean), CovarianceForm::diagonal, 0.0, std::move(variances), {}});
}

std::unique_ptr<GaussianModel> GaussianModel::full(Eigen::VectorXd mean, Eigen::MatrixXd covariance) {
  return std::make_unique<GaussianModel>(
      Parameters{std::move(mean), CovarianceForm::full, 0.0, {}, std::move(covariance)});
}

const GaussianParameters& GaussianModel::parameters() const { return *impl_; }
CovarianceForm GaussianModel::form() const { return impl_->form; }
long GaussianModel::dim() const { return impl_->dim(); }
const Eigen::VectorXd& GaussianModel::mean() const { return impl_->mean; }

Eigen::MatrixXd GaussianModel::covariance() const {
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(dim(), dim());
  impl_->add_covariance_to(covariance);
  return covariance;
}

// log N(x; mu, S) = -1/2 (D log 2pi + log|S| + (x - mu)' S^-1 (x - mu)).
double GaussianModel::log_density(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  if (x.size() != m.mean.size())
    throw std::invalid_argument("GaussianModel::log_density: x has " + std::to_string(x.size()) +
                                " entries, the model's dimension is " + std::to_string(m.dim()));
  // (Only the full form needs a temporary: the Monte Carlo kernel calls this N times per pair.)
  double quadratic = 0.0;
  switch (m.form) {
    case CovarianceForm::isotropic: quadratic = (x - m.mean).squaredNorm() / m.variance; break;
    case CovarianceForm::diagonal: quadratic = ((x - m.mean).array().square() / m.variances.array()).sum(); break;
    case CovarianceForm::full:
      quadratic = m.cholesky.triangularView<Eigen::Lower>().solve(x - m.mean).squaredNorm();
      break;
  }
  return -0.5 * (static_cast<double>(m.dim()) * kLog2Pi + m.log_det + quadratic);
}

long GaussianModel::sample_size() const { return dim(); }

// log Z(rho) = log integral N(x; mu, S)^rho dx: N^rho is (2 pi)^(-rho D/2) |S|^(-rho/2) times the
// unnormalised N(mu, S/rho), whose integral is (2 pi)^(D/2) |S/rho|^(1/2).
double GaussianModel::log_tilted_normalizer(double rho) const {
  const double dim = static_cast<double>(impl_->dim());
  return 0.5 * (1.0 - rho) * (dim * kLog2Pi + impl_->log_det) - 0.5 * dim * std::log(rho);
}

// x = mu + F z / sqrt(rho), z standard normal and F F' = S (the Cholesky factor, or the standard
// deviations): x ~ N(mu, S/rho) = p^rho / Z.
void GaussianModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const Impl& m = *impl_;
  const double scale = 1.0 / std::sqrt(rho);
  Eigen::VectorXd z(m.dim());
  for (Eigen::Index i = 0; i < samples.cols(); ++i) {
    for (Eigen::Index d = 0; d < z.size(); ++d) z[d] = generator.normal();
    switch (m.form) {
      case CovarianceForm::isotropic: z *= std::sqrt(m.variance); break;
      case CovarianceForm::diagonal: z.array() *= m.variances.array().sqrt(); break;
      case CovarianceForm::full: z = m.cholesky.triangularView<Eigen::Lower>() * z; break;
    }
    samples.col(i) = m.mean + scale * z;
  }
}

double GaussianModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const { return log_density(x); }

double GaussianModel::log_probability_work() const {
  const double dim = static_cast<double>(impl_->dim());
  return impl_->form == CovarianceForm::full ? dim * dim : dim;
}

// A pair with a full covariance factorises the D x D matrix S + S' (D^3 / 3) and solves with it (D^2).
double GaussianModel::kernel_work() const {
  const double dim = static_cast<double>(impl_->dim());
  return impl_->form == CovarianceForm::full ? dim * dim * dim : 0.0;
}

const FamilyInfo& GaussianModel::family() const { return gaussian_family(); }

SampleSpace GaussianModel::sample_space() const { return {"real vectors", dim()}; }

void GaussianModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  const double rho = params.rho, dim = static_cast<double>(m.dim());
  m.rho = rho;
  m.log_scale = 0.25 * (1.0 - 2.0 * rho) * dim * kLog2Pi - 0.25 * dim * std::log(rho) + 0.5 * (1.0 - rho) * m.log_det;
}

double GaussianModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const GaussianModel&>(other).impl_;
  if (!a.prepared_with(b)) detail::throw_unprepared_pair(kFamily);
  const double rho = a.rho;
  double pair_terms;  // -1/2 log|S + S'| - rho/2 (mu - mu')' (S + S')^-1 (mu - mu')
  if (a.form == CovarianceForm::isotropic && b.form == CovarianceForm::isotropic) {
    return a.isotropic_log_kernel(b);
  } else if (a.form != CovarianceForm::full && b.form != CovarianceForm::full) {
    pair_terms = a.with_variances([&](const auto& var_a) {
      return b.with_variances([&](const auto& var_b) { return diagonal_pair_terms(a.mean, var_a, b.mean, var_b, rho); });
    });
  } else {
    // Per-thread scratch, grown only when the dimension grows: kernels are evaluated from
    // several threads at once, and the hot loop must not allocate.
    thread_local Eigen::MatrixXd sum_storage;
    thread_local Eigen::VectorXd diff_storage;
    const Eigen::Index dim = a.mean.size();
    if (sum_storage.rows() < dim) {
      sum_storage.resize(dim, dim);
      diff_storage.resize(dim);
    }
    Eigen::Ref<Eigen::MatrixXd> sum = sum_storage.topLeftCorner(dim, dim);
    sum.setZero();
    a.add_covariance_to(sum);
    b.add_covariance_to(sum);
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(sum);  // factorises S + S' in place: L L' = S + S'
    // S + S' is positive definite whenever S and S' are; a failure means it is numerically singular.
    if (llt.info() != Eigen::Success) return std::numeric_limits<double>::quiet_NaN();
    auto whitened = diff_storage.head(dim);
    whitened = a.mean - b.mean;
    llt.matrixL().solveInPlace(whitened);  // L^-1 (mu - mu'): its squared norm is the quadratic form
    const double log_det_sum = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    pair_terms = -0.5 * (log_det_sum + rho * whitened.squaredNorm());
  }
  return a.log_scale + b.log_scale + pair_terms;
}

const GaussianModel::Impl& GaussianModel::impl_of(const Model& other) {
  return *static_cast<const GaussianModel&>(other).impl_;
}

// Isotropic pairs inline (no virtual call per pair), the others through log_kernel.
void GaussianModel::log_kernel_many(const Model* const* others, std::size_t n, double* out) const {
  const Impl& a = *impl_;
  for (std::size_t k = 0; k < n; ++k) {
    const Impl& b = impl_of(*others[k]);
    if (a.form == CovarianceForm::isotropic && b.form == CovarianceForm::isotropic && a.prepared_with(b))
      out[k] = a.isotropic_log_kernel(b);
    else
      out[k] = GaussianModel::log_kernel(*others[k]);
  }
}

void GaussianModel::kernel_many(const Model* const* others, std::size_t n, double* out) const {
  log_kernel_many(others, n, out);
  for (std::size_t k = 0; k < n; ++k) out[k] = std::exp(out[k]);  // as Model::kernel
}

const FamilyInfo& gaussian_family() {
  static const FamilyInfo info = make_family<GaussianModel>(kFamily, 1);
  return info;
}

}  // namespace ppk
