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
#include <nlohmann/json.hpp>

#include "core/model_fields.hpp"
#include "ppk/core/row.hpp"

namespace ppk {

using detail::element_error;
using detail::field_error;
using detail::FieldError;
using detail::format_number;
using detail::lower_triangle_offset;

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

struct GaussianModel::Impl {
  CovarianceForm form = CovarianceForm::isotropic;
  Eigen::VectorXd mean;
  double variance = 0.0;        // isotropic: S = variance I
  Eigen::VectorXd variances;    // diagonal: S = diag(variances)
  Eigen::MatrixXd covariance;   // full
  Eigen::MatrixXd cholesky;     // full: lower-triangular L with L L' = S
  double log_det = 0.0;         // log |S|
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

GaussianModel::GaussianModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GaussianModel::~GaussianModel() = default;

std::unique_ptr<GaussianModel> GaussianModel::isotropic(Eigen::VectorXd mean, double variance) {
  check_mean(mean);
  if (!detail::is_positive_finite(variance))
    throw field_error(kFamily, "var", "a positive finite number", format_number(variance));
  auto impl = std::make_unique<Impl>();
  impl->form = CovarianceForm::isotropic;
  impl->log_det = static_cast<double>(mean.size()) * std::log(variance);
  impl->mean = std::move(mean);
  impl->variance = variance;
  return std::unique_ptr<GaussianModel>(new GaussianModel(std::move(impl)));
}

std::unique_ptr<GaussianModel> GaussianModel::diagonal(Eigen::VectorXd mean, Eigen::VectorXd variances) {
  check_mean(mean);
  if (variances.size() != mean.size())
    throw field_error(kFamily, "diag", std::to_string(mean.size()) + " variances (one per mean entry)",
                      std::to_string(variances.size()));
  for (Eigen::Index d = 0; d < variances.size(); ++d)
    if (!detail::is_positive_finite(variances[d]))
      throw element_error(kFamily, "diag", d, "a positive finite number", variances[d]);
  auto impl = std::make_unique<Impl>();
  impl->form = CovarianceForm::diagonal;
  impl->log_det = variances.array().log().sum();
  impl->mean = std::move(mean);
  impl->variances = std::move(variances);
  return std::unique_ptr<GaussianModel>(new GaussianModel(std::move(impl)));
}

std::unique_ptr<GaussianModel> GaussianModel::full(Eigen::VectorXd mean, Eigen::MatrixXd covariance) {
  check_mean(mean);
  const Eigen::Index dim = mean.size();
  if (dim > kMaxFullDimension)
    throw field_error(kFamily, "cov", "a dimension of at most " + std::to_string(kMaxFullDimension) +
                      " for a full covariance", std::to_string(dim));
  if (covariance.rows() != dim || covariance.cols() != dim)
    throw field_error(kFamily, "cov",
                      "a " + std::to_string(dim) + " x " + std::to_string(dim) + " matrix (D = the mean's length)",
                      std::to_string(covariance.rows()) + " x " + std::to_string(covariance.cols()));
  detail::check_symmetric(kFamily, "cov", covariance);
  Eigen::MatrixXd symmetric = 0.5 * (covariance + covariance.transpose());
  Eigen::LLT<Eigen::MatrixXd> llt(symmetric);
  const double log_det =
      llt.info() == Eigen::Success ? 2.0 * llt.matrixLLT().diagonal().array().log().sum() : std::nan("");
  if (!std::isfinite(log_det))
    throw field_error(kFamily, "cov", "a symmetric positive definite matrix (its Cholesky factorisation failed)");
  auto impl = std::make_unique<Impl>();
  impl->form = CovarianceForm::full;
  impl->log_det = log_det;
  impl->mean = std::move(mean);
  impl->cholesky = llt.matrixL();
  impl->covariance = std::move(symmetric);
  return std::unique_ptr<GaussianModel>(new GaussianModel(std::move(impl)));
}

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

// Row fields: D, form, mean, then the covariance (see gaussian.hpp).
void GaussianModel::encode_fields(RowWriter& out) const {
  const Impl& m = *impl_;
  out.real(static_cast<double>(m.dim()));
  out.real(static_cast<double>(static_cast<int>(m.form)));
  out.reals(m.mean.data(), m.mean.data() + m.mean.size());
  switch (m.form) {
    case CovarianceForm::isotropic: out.real(m.variance); break;
    case CovarianceForm::diagonal: out.reals(m.variances.data(), m.variances.data() + m.variances.size()); break;
    case CovarianceForm::full:
      for (Eigen::Index i = 0; i < m.covariance.rows(); ++i)
        for (Eigen::Index j = 0; j <= i; ++j) out.real(m.covariance(i, j));
      break;
  }
}

namespace {

std::vector<double> to_vector(const Eigen::VectorXd& v) { return std::vector<double>(v.data(), v.data() + v.size()); }

std::unique_ptr<Model> decode_gaussian(RowReader& fields) {
  const long dim = fields.integer("dim", 1, detail::kMaxDimension);
  const auto form = static_cast<CovarianceForm>(fields.integer("form", 1, 3));
  if (form == CovarianceForm::full && dim > kMaxFullDimension)
    throw ModelError(detail::row_field_location(kFamily, "dim", kFirstFieldIndex, 1) + ": expected at most " +
                     std::to_string(kMaxFullDimension) + " with a full covariance (form 3), got " +
                     std::to_string(dim));
  const long mean_first = fields.next_index();
  const std::vector<double> mean_values = fields.reals("mean", static_cast<std::size_t>(dim));
  Eigen::VectorXd mean = Eigen::Map<const Eigen::VectorXd>(mean_values.data(), dim);
  const long covariance_first = fields.next_index();
  switch (form) {
    case CovarianceForm::isotropic: {
      const double variance = fields.real("var");
      return detail::build_from_row({{"mean", mean_first, dim}, {"var", covariance_first, 1}},
                                    [&] { return GaussianModel::isotropic(std::move(mean), variance); });
    }
    case CovarianceForm::diagonal: {
      const std::vector<double> values = fields.reals("diag", static_cast<std::size_t>(dim));
      return detail::build_from_row({{"mean", mean_first, dim}, {"diag", covariance_first, dim}}, [&] {
        return GaussianModel::diagonal(std::move(mean), Eigen::Map<const Eigen::VectorXd>(values.data(), dim));
      });
    }
    case CovarianceForm::full: {
      const long count = dim * (dim + 1) / 2;
      const std::vector<double> lower = fields.reals("cov", static_cast<std::size_t>(count));
      Eigen::MatrixXd covariance(dim, dim);
      for (long i = 0; i < dim; ++i)
        for (long j = 0; j <= i; ++j) covariance(i, j) = covariance(j, i) = lower[lower_triangle_offset(i, j)];
      return detail::build_from_row({{"mean", mean_first, dim}, {"cov", covariance_first, count}},
                                    [&] { return GaussianModel::full(std::move(mean), std::move(covariance)); });
    }
  }
  throw fields.invalid("form", "1, 2 or 3");  // unreachable: integer() checked the range
}

std::unique_ptr<Model> gaussian_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"mean", "var", "diag", "cov"});
  const std::vector<double> mean_values = fields.reals("mean");
  Eigen::VectorXd mean = Eigen::Map<const Eigen::VectorXd>(mean_values.data(), mean_values.size());
  if (fields.has("var") + fields.has("diag") + fields.has("cov") != 1)
    throw ModelError(std::string(kFamily) +
                     ": expected exactly one of the fields \"var\" (isotropic), \"diag\" (diagonal) or \"cov\" (full)");
  if (fields.has("var")) return GaussianModel::isotropic(std::move(mean), fields.real("var"));
  if (fields.has("diag")) {
    const std::vector<double> values = fields.reals("diag");
    return GaussianModel::diagonal(std::move(mean), Eigen::Map<const Eigen::VectorXd>(values.data(), values.size()));
  }
  const std::vector<std::vector<double>> rows = fields.matrix("cov");
  const Eigen::Index dim = mean.size();
  Eigen::MatrixXd covariance(static_cast<Eigen::Index>(rows.size()), dim);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<Eigen::Index>(rows[i].size()) != dim)
      throw ModelError(std::string(kFamily) + " field \"cov\"[" + std::to_string(i) + "]: expected " +
                       std::to_string(dim) + " numbers (D = the mean's length), got " + std::to_string(rows[i].size()));
    covariance.row(static_cast<Eigen::Index>(i)) = Eigen::Map<const Eigen::RowVectorXd>(rows[i].data(), dim);
  }
  return GaussianModel::full(std::move(mean), std::move(covariance));
}

}  // namespace

void GaussianModel::to_json(nlohmann::json& out) const {
  const Impl& m = *impl_;
  out = nlohmann::json::object();
  out["family"] = kFamily;
  out["mean"] = to_vector(m.mean);
  switch (m.form) {
    case CovarianceForm::isotropic: out["var"] = m.variance; break;
    case CovarianceForm::diagonal: out["diag"] = to_vector(m.variances); break;
    case CovarianceForm::full: {
      nlohmann::json rows = nlohmann::json::array();
      for (Eigen::Index i = 0; i < m.covariance.rows(); ++i) rows.push_back(to_vector(m.covariance.row(i).transpose()));
      out["cov"] = std::move(rows);
      break;
    }
  }
}

const FamilyInfo& gaussian_family() {
  static const FamilyInfo info{kFamily, 1, &decode_gaussian, &gaussian_from_json};
  return info;
}

}  // namespace ppk
