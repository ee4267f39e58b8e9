// Bernoulli (naive Bayes) models over {0,1}^D and their kernel (see bernoulli.hpp).
//
// JMLR 2004 section 3.2: the sum over x in {0,1}^D of prod_d (g_d g'_d)^(rho x_d) ((1-g_d)(1-g'_d))^(rho (1-x_d))
// factorises into prod_d [(g_d g'_d)^rho + ((1-g_d)(1-g'_d))^rho]. A product of D factors
// below 1 underflows, so log k is evaluated as a sum of logs.
#include "ppk/families/bernoulli.hpp"

#include <climits>
#include <cmath>

#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"

namespace ppk {

namespace {
const char* const kFamily = "bernoulli";
}

template <class Archive>
void BernoulliParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", p.dim, 1, detail::kMaxDimension);
  archive.probabilities("p", p, dim);
}

struct BernoulliModel::Impl : BernoulliParameters {
  // Set by prepare():
  double rho = 0.0;
  double base_on = 0.0, base_off = 0.0;  // base^rho, (1 - base)^rho
  std::vector<double> on, off;           // g_d^rho, (1 - g_d)^rho for the listed coordinates
};

BernoulliModel::BernoulliModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  impl_->p = detail::checked_probabilities(kFamily, std::move(parameters.p));
}

BernoulliModel::~BernoulliModel() = default;

const SparseProbabilities& BernoulliModel::probabilities() const { return impl_->p; }
const BernoulliParameters& BernoulliModel::parameters() const { return *impl_; }

const FamilyInfo& BernoulliModel::family() const { return bernoulli_family(); }

SampleSpace BernoulliModel::sample_space() const { return {"binary vectors", impl_->p.dim}; }

void BernoulliModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  m.rho = params.rho;
  m.base_on = std::pow(m.p.base, m.rho);
  m.base_off = std::pow(1.0 - m.p.base, m.rho);
  m.on.resize(m.p.listed());
  m.off.resize(m.p.listed());
  for (std::size_t i = 0; i < m.p.listed(); ++i) {
    m.on[i] = std::pow(m.p.value[i], m.rho);
    m.off[i] = std::pow(1.0 - m.p.value[i], m.rho);
  }
}

// log k = sum_d log[(g_d g'_d)^rho + ((1-g_d)(1-g'_d))^rho]. The coordinates listed by either
// model are merged (O(listed)); the others are at both bases and share one factor.
double BernoulliModel::log_kernel(const Model& other) const {
  const Impl& a = *impl_;
  const Impl& b = *static_cast<const BernoulliModel&>(other).impl_;
  if (a.rho <= 0.0 || a.rho != b.rho || a.p.dim != b.p.dim) detail::throw_unprepared_pair(kFamily);
  const std::size_t listed_a = a.p.listed(), listed_b = b.p.listed();
  double log_k = 0.0;
  long merged = 0;
  for (std::size_t i = 0, j = 0; i < listed_a || j < listed_b; ++merged) {
    const long da = i < listed_a ? a.p.index[i] : LONG_MAX;
    const long db = j < listed_b ? b.p.index[j] : LONG_MAX;
    const bool in_a = da <= db, in_b = db <= da;
    const double on_a = in_a ? a.on[i] : a.base_on, off_a = in_a ? a.off[i] : a.base_off;
    const double on_b = in_b ? b.on[j] : b.base_on, off_b = in_b ? b.off[j] : b.base_off;
    log_k += std::log(on_a * on_b + off_a * off_b);
    i += in_a;
    j += in_b;
  }
  const long at_both_bases = a.p.dim - merged;
  if (at_both_bases > 0)  // (guarded: 0 * log 0 would be NaN)
    log_k += static_cast<double>(at_both_bases) * std::log(a.base_on * b.base_on + a.base_off * b.base_off);
  return log_k;
}

long BernoulliModel::sample_size() const { return impl_->p.dim; }

// log Z(rho) = sum_d log[g_d^rho + (1-g_d)^rho]: the unlisted coordinates share one term.
double BernoulliModel::log_tilted_normalizer(double rho) const {
  const SparseProbabilities& g = impl_->p;
  const auto log_mass = [rho](double p) { return std::log(std::pow(p, rho) + std::pow(1.0 - p, rho)); };
  double log_z = static_cast<double>(g.dim - static_cast<long>(g.listed())) * log_mass(g.base);
  for (double v : g.value) log_z += log_mass(v);
  return log_z;
}

// x_d = 1 with probability g_d^rho / (g_d^rho + (1-g_d)^rho), independently per coordinate.
void BernoulliModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  const std::vector<double> g = impl_->p.dense();
  Eigen::VectorXd on(samples.rows());
  for (Eigen::Index d = 0; d < on.size(); ++d) {
    const double power_on = std::pow(g[d], rho), power_off = std::pow(1.0 - g[d], rho);
    on[d] = power_on / (power_on + power_off);
  }
  for (Eigen::Index s = 0; s < samples.cols(); ++s)
    for (Eigen::Index d = 0; d < on.size(); ++d) samples(d, s) = generator.uniform() < on[d] ? 1.0 : 0.0;
}

// log p(x) = sum_d log g_d (x_d = 1) or log(1 - g_d) (x_d = 0).
double BernoulliModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const SparseProbabilities& g = impl_->p;
  double log_p = 0.0;
  std::size_t i = 0;
  for (long d = 0; d < g.dim; ++d) {
    const bool listed = i < g.listed() && g.index[i] == d;
    const double p = listed ? g.value[i++] : g.base;
    log_p += std::log(x[d] != 0.0 ? p : 1.0 - p);
  }
  return log_p;
}

// phi over {0,1}^D built one coordinate at a time: after coordinates 0..d-1 the 2^d entries are the
// products over those coordinates, and coordinate d doubles them, x with x_d = 0 times (1-g_d)^rho
// first, then x + 2^d times g_d^rho.
ExactFeatures BernoulliModel::exact_features() const {
  constexpr long kMaxExactDimension = 20;
  const Impl& m = *impl_;
  if (m.p.dim > kMaxExactDimension)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the exact map has a feature for each of the 2^D binary vectors, too many beyond D = " +
                            std::to_string(kMaxExactDimension) + "; use a Nystrom map");
  std::vector<double> phi(std::size_t{1} << m.p.dim);
  phi[0] = 1.0;
  std::size_t i = 0, filled = 1;
  for (long d = 0; d < m.p.dim; ++d, filled *= 2) {
    const bool listed = i < m.p.listed() && m.p.index[i] == d;
    const double on = listed ? m.on[i] : m.base_on, off = listed ? m.off[i] : m.base_off;
    i += listed;
    for (std::size_t x = 0; x < filled; ++x) {
      phi[x + filled] = phi[x] * on;
      phi[x] *= off;
    }
  }
  ExactFeatures features;
  features.dim = static_cast<long>(phi.size());
  for (std::size_t x = 0; x < phi.size(); ++x)
    if (phi[x] != 0.0) {
      features.index.push_back(static_cast<long>(x));
      features.value.push_back(phi[x]);
    }
  return features;
}

const FamilyInfo& bernoulli_family() {
  static const FamilyInfo info = make_family<BernoulliModel>(kFamily, 2);
  return info;
}

}  // namespace ppk
