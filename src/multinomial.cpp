// Multinomial models and their kernels (see multinomial.hpp; JMLR 2004 section 3.3).
//
// Every kernel here is built from the sum S = sum_d (a_d a'_d)^rho over the D categories:
//   one event:  k = S                                   (any rho)
//   s trials:   k = S^s                                 (rho = 1/2, eq. 6, multinomial theorem)
//   all s:      k = sum_s (lambda S)^s = 1/(1 - lambda S)  (rho = 1/2, geometric series)
// With a_d = b + (listed deviations), write A_d = a_d^rho = b^rho + u_d (u_d = 0 off the list):
//   S = D b^rho b'^rho + b^rho U' + b'^rho U + sum over coordinates listed by both of u_d u'_d,
// U = sum_d u_d, so a pair costs O(listed) however large D is.
#include "ppk/multinomial.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "gamma_integrals.hpp"
#include "model_fields.hpp"
#include "ppk/row.hpp"

namespace ppk {

using detail::field_error;
using detail::format_number;

namespace {
const char* const kFamily = "multinomial";
constexpr long kMaxTrials = 1000000000;  // 10^9
constexpr double kSumTolerance = 1e-6;   // how far sum_d a_d may be from 1 (then renormalised)
// The Bhattacharyya sum B = sum_d sqrt(a_d a'_d) is at most 1 (Cauchy-Schwarz), with equality
// only for a = a'. Rounding puts the computed B of identical models within a few ulps of 1;
// the series over all s then diverges.
constexpr double kIdenticalModels = 1e-12;
}  // namespace

struct MultinomialModel::Impl {
  SparseProbabilities a;
  Trials trials;
  // Set by prepare():
  double rho = 0.0;
  double base_power = 0.0;  // b^rho
  // u_d = a_d^rho - b^rho for the listed coordinates, each next to its index: the merge
  // below reads one array per model, as LIBSVM's own sparse dot product does.
  struct Excess {
    long index;
    double value;
  };
  std::vector<Excess> excess;
  double excess_sum = 0.0;  // U = sum_d u_d

  // S = sum_d (a_d a'_d)^rho (see the top of this file). The merge over listed coordinates
  // advances without branches: both sides step on a tie, the smaller index steps otherwise.
  double power_sum(const Impl& b) const {
    double sum = static_cast<double>(a.dim) * base_power * b.base_power + base_power * b.excess_sum +
                 b.base_power * excess_sum;
    const Excess *i = excess.data(), *const i_end = i + excess.size();
    const Excess *j = b.excess.data(), *const j_end = j + b.excess.size();
    while (i < i_end && j < j_end) {
      const long di = i->index, dj = j->index;
      sum += di == dj ? i->value * j->value : 0.0;
      i += di <= dj;
      j += dj <= di;
    }
    return sum;
  }

  // power_sum(b) for every b in others, the same values bit for bit: this model's excess values
  // are scattered once into a dense per-thread array (zero elsewhere), so each b costs one pass
  // over its own listed coordinates; the products are added in the merge's order, and a
  // coordinate listed by one side only adds a zero product as the merge adds 0.0.
  void power_sums(const Model* const* others, std::size_t n, double* out) const;
  // Throws unless b was prepared with the same parameters and the same sample space.
  void check_pair(const Impl& b) const {
    if (rho <= 0.0 || rho != b.rho || a.dim != b.a.dim || trials.kind != b.trials.kind || trials.count != b.trials.count)
      detail::throw_unprepared_pair(kFamily);
  }
  // k from S (see the top of this file)
  double kernel_from_sum(const Impl& b, double sum) const {
    switch (trials.kind) {
      case Trials::one_event: return sum;
      case Trials::fixed: return std::pow(sum, static_cast<double>(trials.count));
      case Trials::all: break;
    }
    // Each model weights the s-trial kernels by its own decay^(s/2), so the pair's ratio is
    // sqrt(lambda lambda'): k = sum_s (sqrt(lambda lambda') B)^s stays a sum of positive
    // semidefinite kernels when the decays differ.
    const double ratio = std::sqrt(trials.decay * b.trials.decay) * std::min(sum, 1.0);
    if (ratio >= 1.0 - kIdenticalModels) return std::numeric_limits<double>::infinity();
    return 1.0 / (1.0 - ratio);
  }
  // log k from S: log(B^s) = s log B for s trials (B^s alone underflows for long documents)
  double log_kernel_from_sum(const Impl& b, double sum) const {
    if (trials.kind == Trials::fixed) return static_cast<double>(trials.count) * std::log(sum);
    return std::log(kernel_from_sum(b, sum));
  }
};

namespace {
// Beyond this dimension the dense scatter array (8 bytes per category and thread) is not worth
// its memory: batches fall back to one merge per pair.
constexpr long kMaxScatterDimension = 1L << 22;
}  // namespace

void MultinomialModel::Impl::power_sums(const Model* const* others, std::size_t n, double* out) const {
  if (a.dim > kMaxScatterDimension) {
    for (std::size_t k = 0; k < n; ++k) out[k] = power_sum(impl_of(*others[k]));
    return;
  }
  // Zero everywhere between calls; grown (zero-filled) only when the dimension grows.
  thread_local std::vector<double> dense;
  if (dense.size() < static_cast<std::size_t>(a.dim)) dense.resize(static_cast<std::size_t>(a.dim), 0.0);
  double* const u = dense.data();
  for (const Excess& e : excess) u[e.index] = e.value;
  for (std::size_t k = 0; k < n; ++k) {
    const Impl& b = impl_of(*others[k]);
    double sum = static_cast<double>(a.dim) * base_power * b.base_power + base_power * b.excess_sum +
                 b.base_power * excess_sum;
    for (const Excess& e : b.excess) sum += u[e.index] * e.value;
    out[k] = sum;
  }
  for (const Excess& e : excess) u[e.index] = 0.0;
}

MultinomialModel::MultinomialModel(SparseProbabilities a, Trials trials) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.a = detail::checked_probabilities(kFamily, std::move(a));
  const double sum = m.a.sum();
  if (!(std::fabs(sum - 1.0) <= kSumTolerance))
    throw field_error(kFamily, "p", "probabilities summing to 1 (within 1e-6)", "a sum of " + format_number(sum));
  // Dividing by a sum within rounding of 1 would change the last bits of probabilities that were
  // already renormalised (a row or JSON round trip must be exact): only a larger error is divided out.
  if (std::fabs(sum - 1.0) > static_cast<double>(m.a.dim) * std::numeric_limits<double>::epsilon()) {
    m.a.base /= sum;
    for (double& v : m.a.value) v /= sum;
  }
  switch (trials.kind) {
    case Trials::one_event: trials.count = 0; trials.decay = 1.0; break;
    case Trials::fixed:
      if (trials.count < 1 || trials.count > kMaxTrials)
        throw field_error(kFamily, "trials", "a whole number of trials in [1, 10^9]", std::to_string(trials.count));
      trials.decay = 1.0;
      break;
    case Trials::all:
      if (!(trials.decay > 0.0 && trials.decay <= 1.0))
        throw field_error(kFamily, "decay", "a number in (0, 1]", format_number(trials.decay));
      trials.count = 0;
      break;
  }
  m.trials = trials;
}

MultinomialModel::~MultinomialModel() = default;

const SparseProbabilities& MultinomialModel::probabilities() const { return impl_->a; }
const Trials& MultinomialModel::trials() const { return impl_->trials; }

const FamilyInfo& MultinomialModel::family() const { return multinomial_family(); }

SampleSpace MultinomialModel::sample_space() const {
  const Impl& m = *impl_;
  switch (m.trials.kind) {
    case Trials::one_event: return {"categories", m.a.dim};
    case Trials::fixed: return {"counts with " + std::to_string(m.trials.count) + " trials", m.a.dim};
    case Trials::all: break;
  }
  return {"counts", m.a.dim};
}

void MultinomialModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  if (m.trials.kind != Trials::one_event && params.rho != 0.5)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the kernel over counts has a closed form only for rho = 1/2, the Bhattacharyya "
                            "kernel (JMLR 2004 eq. 6); use -g 0.5 (got rho = " + format_number(params.rho) + ")");
  if (m.trials.kind == Trials::all && m.trials.decay == 1.0)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the sum over all trial counts, 1/(1 - B), diverges for identical models (B = 1), "
                            "so the self-kernel k(p, p) is infinite; set a decay < 1 "
                            "(JSON field \"decay\", row index 5) to weight s trials by decay^s");
  m.rho = params.rho;
  m.base_power = std::pow(m.a.base, m.rho);
  m.excess.resize(m.a.listed());
  m.excess_sum = 0.0;
  for (std::size_t i = 0; i < m.a.listed(); ++i) {
    m.excess[i] = {m.a.index[i], std::pow(m.a.value[i], m.rho) - m.base_power};
    m.excess_sum += m.excess[i].value;
  }
}

const MultinomialModel::Impl& MultinomialModel::impl_of(const Model& other) {
  return *static_cast<const MultinomialModel&>(other).impl_;
}

double MultinomialModel::kernel(const Model& other) const {
  const Impl &a = *impl_, &b = impl_of(other);
  a.check_pair(b);
  return a.kernel_from_sum(b, a.power_sum(b));
}

double MultinomialModel::log_kernel(const Model& other) const {
  const Impl &a = *impl_, &b = impl_of(other);
  a.check_pair(b);
  return a.log_kernel_from_sum(b, a.power_sum(b));
}

// The batch kernels: every pair checked first (so a throw leaves nothing half done), the
// sums S in one scatter pass, then k or log k from each S.
template <class FromSum>
void MultinomialModel::batch(const Model* const* others, std::size_t n, double* out, FromSum from_sum) const {
  const Impl& a = *impl_;
  for (std::size_t k = 0; k < n; ++k) a.check_pair(impl_of(*others[k]));
  a.power_sums(others, n, out);
  for (std::size_t k = 0; k < n; ++k) out[k] = (a.*from_sum)(impl_of(*others[k]), out[k]);
}

void MultinomialModel::kernel_many(const Model* const* others, std::size_t n, double* out) const {
  batch(others, n, out, &Impl::kernel_from_sum);
}

void MultinomialModel::log_kernel_many(const Model* const* others, std::size_t n, double* out) const {
  batch(others, n, out, &Impl::log_kernel_from_sum);
}

namespace {

// Beyond this many steps, D (s + 1)^2 / 2, the tilted model over counts is refused (a fraction of a
// second, and at most 2 x 10^7 doubles of tables).
constexpr double kMaxCountSteps = 1e7;

// The tilted model over counts with s trials, p^rho / Z with pmf(c) = s! prod_d a_d^c_d / c_d! over
// the count vectors c summing to s. Z(rho) = sum_c pmf(c)^rho has no closed form other than at rho = 1
// (Z = 1) and is summed exactly by dynamic programming over the coordinates, in logs:
//     L_0(m) = 0 for m = 0, -inf above;
//     L_d(m) = logsumexp over c = 0..m of [w_d(c) + L_{d-1}(m - c)],   w_d(c) = rho (c log a_d - log c!),
// L_d(m) the log of the sum over (c_1..c_d) summing to m of prod_{j <= d} (a_j^c_j / c_j!)^rho, so
// log Z = rho log s! + L_D(s). A draw goes backwards: with m trials left for coordinates 1..d,
// c_d = c with probability exp(w_d(c) + L_{d-1}(m - c) - L_d(m)), then m -= c_d.
// O(D (s + 1)^2 / 2) steps and O(D (s + 1)) memory once, O(D (s + 1)) a draw.
class TiltedCounts {
 public:
  TiltedCounts(const SparseProbabilities& a, long trials, double rho)
      : dim_(a.dim), width_(trials + 1), weight_(dim_ * width_), partial_((dim_ + 1) * width_, -kInfinity) {
    const std::vector<double> p = a.dense();
    for (long d = 0; d < dim_; ++d)
      for (long c = 0; c < width_; ++c)  // a_d = 0 allows only c = 0 (0^0 = 1)
        weight_[d * width_ + c] =
            p[d] > 0.0 ? rho * (c * std::log(p[d]) - detail::log_gamma(c + 1.0)) : (c == 0 ? 0.0 : -kInfinity);
    partial_[0] = 0.0;
    std::vector<double> terms;
    for (long d = 1; d <= dim_; ++d)
      for (long m = 0; m < width_; ++m) {
        terms.resize(static_cast<std::size_t>(m + 1));
        for (long c = 0; c <= m; ++c) terms[c] = weight(d, c) + partial(d - 1, m - c);
        partial_[d * width_ + m] = detail::log_sum_exp(terms);
      }
    log_normalizer_ = rho * detail::log_gamma(static_cast<double>(width_)) + partial(dim_, trials);
  }

  double log_normalizer() const { return log_normalizer_; }

  // One count vector into `counts` (D entries).
  void draw(SampleGenerator& generator, Eigen::Ref<Eigen::VectorXd> counts) const {
    long left = width_ - 1;
    std::vector<double> cumulative;
    for (long d = dim_; d >= 1; --d) {
      cumulative.resize(static_cast<std::size_t>(left + 1));
      double total = 0.0;
      for (long c = 0; c <= left; ++c)
        cumulative[c] = total += std::exp(weight(d, c) + partial(d - 1, left - c) - partial(d, left));
      const long c = static_cast<long>(generator.categorical(cumulative.data(), cumulative.size()));
      counts[d - 1] = static_cast<double>(c);
      left -= c;
    }
  }

 private:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
  double weight(long d, long c) const { return weight_[(d - 1) * width_ + c]; }  // w_d(c), d = 1..D
  double partial(long d, long m) const { return partial_[d * width_ + m]; }      // L_d(m)
  long dim_, width_;
  std::vector<double> weight_, partial_;
  double log_normalizer_ = 0.0;
};

// The tilted model over counts (TiltedCounts), refused beyond kMaxCountSteps.
TiltedCounts tilted_counts(const MultinomialModel& model, double rho) {
  const double dim = static_cast<double>(model.probabilities().dim), width = model.trials().count + 1.0;
  if (dim * width * width / 2.0 > kMaxCountSteps)
    throw KernelDomainError(std::string(kFamily) + " over " + model.sample_space().describe() +
                            ": Monte Carlo draws from p^rho / Z at rho = " + format_number(rho) +
                            " sum Z(rho) over every count vector by dynamic programming, D (s + 1)^2 / 2 = " +
                            format_number(dim * width * width / 2.0) + " steps, above the limit of 10^7");
  return TiltedCounts(model.probabilities(), model.trials().count, rho);
}

}  // namespace

bool MultinomialModel::can_sample() const { return impl_->trials.kind != Trials::all; }

long MultinomialModel::sample_size() const { return impl_->trials.kind == Trials::one_event ? 1 : impl_->a.dim; }

// One event: Z(rho) = sum_d a_d^rho = (D - listed) b^rho + sum over listed d of a_d^rho.
// Counts: TiltedCounts.
double MultinomialModel::log_tilted_normalizer(double rho) const {
  if (impl_->trials.kind == Trials::fixed) return tilted_counts(*this, rho).log_normalizer();
  const SparseProbabilities& a = impl_->a;
  double sum = static_cast<double>(a.dim - static_cast<long>(a.listed())) * std::pow(a.base, rho);
  for (double v : a.value) sum += std::pow(v, rho);
  return std::log(sum);
}

// Category d with probability a_d^rho / Z: first the listed coordinate, or the block of the
// D - listed coordinates at the base (total weight (D - listed) b^rho), by one categorical draw
// over listed + 1 weights; within the block every coordinate has the same weight, so a second
// uniform draw picks the j-th unlisted coordinate, d = j + #{listed i : index_i - i <= j}
// (index_i - i counts the unlisted coordinates below index_i). O(listed) once, O(log listed) a draw.
void MultinomialModel::sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const {
  if (impl_->trials.kind == Trials::fixed) {
    const TiltedCounts counts = tilted_counts(*this, rho);
    for (Eigen::Index s = 0; s < samples.cols(); ++s) counts.draw(generator, samples.col(s));
    return;
  }
  const SparseProbabilities& a = impl_->a;
  const long unlisted = a.dim - static_cast<long>(a.listed());
  std::vector<double> cumulative(a.listed() + 1);
  cumulative[0] = static_cast<double>(unlisted) * std::pow(a.base, rho);
  for (std::size_t i = 0; i < a.listed(); ++i) cumulative[i + 1] = cumulative[i] + std::pow(a.value[i], rho);
  std::vector<long> unlisted_below(a.listed());
  for (std::size_t i = 0; i < a.listed(); ++i) unlisted_below[i] = a.index[i] - static_cast<long>(i);
  for (Eigen::Index s = 0; s < samples.cols(); ++s) {
    const std::size_t k = generator.categorical(cumulative.data(), cumulative.size());
    long d;
    if (k > 0) {
      d = a.index[k - 1];
    } else {
      const long j = std::min(static_cast<long>(generator.uniform() * static_cast<double>(unlisted)), unlisted - 1);
      d = j + static_cast<long>(std::upper_bound(unlisted_below.begin(), unlisted_below.end(), j) - unlisted_below.begin());
    }
    samples(0, s) = static_cast<double>(d);
  }
}

// One event: log a_x. Counts: log pmf(c) = log s! + sum_d [c_d log a_d - log c_d!] (-inf where a_d = 0
// < c_d, or where the counts do not sum to s).
double MultinomialModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  const Impl& m = *impl_;
  if (m.trials.kind == Trials::one_event) return std::log(m.a.at(static_cast<long>(x[0])));
  if (x.sum() != static_cast<double>(m.trials.count)) return -std::numeric_limits<double>::infinity();
  double log_p = detail::log_gamma(x.sum() + 1.0);
  for (long d = 0; d < m.a.dim; ++d)
    if (x[d] != 0.0) log_p += x[d] * std::log(m.a.at(d)) - detail::log_gamma(x[d] + 1.0);
  return log_p;
}

// Row fields: D, trials (0 one event, s, -1 all), decay (0 = 1), base, then the listed a_d.
void MultinomialModel::encode_fields(RowWriter& out) const {
  const Impl& m = *impl_;
  out.real(static_cast<double>(m.a.dim));
  out.real(m.trials.kind == Trials::all ? -1.0 : static_cast<double>(m.trials.count));
  out.real(m.trials.kind == Trials::all && m.trials.decay != 1.0 ? m.trials.decay : 0.0);
  out.real(m.a.base);
  std::vector<std::pair<long, double>> listed;
  listed.reserve(m.a.listed());
  for (std::size_t i = 0; i < m.a.listed(); ++i) listed.emplace_back(m.a.index[i], m.a.value[i]);
  out.sparse(listed, static_cast<std::size_t>(m.a.dim));
}

void MultinomialModel::to_json(nlohmann::json& out) const {
  const Impl& m = *impl_;
  out = nlohmann::json::object();
  out["family"] = kFamily;
  out["p"] = m.a.dense();
  if (m.trials.kind == Trials::fixed) out["trials"] = m.trials.count;
  if (m.trials.kind == Trials::all) {
    out["trials"] = "all";
    if (m.trials.decay != 1.0) out["decay"] = m.trials.decay;
  }
}

namespace {

std::unique_ptr<Model> decode_multinomial(RowReader& fields) {
  const long dim = fields.integer("dim", 1, detail::kMaxDimension);
  Trials trials;
  const long trials_index = fields.next_index();
  const long count = fields.integer("trials", -1, kMaxTrials);
  trials.kind = count == 0 ? Trials::one_event : count > 0 ? Trials::fixed : Trials::all;
  trials.count = std::max(count, 0L);
  const long decay_index = fields.next_index();
  const double decay = fields.real("decay");
  if (trials.kind != Trials::all && decay != 0.0)
    throw fields.invalid("decay", "0 or nothing (a decay applies only with trials -1, all)", decay);
  if (trials.kind == Trials::all && decay != 0.0) trials.decay = decay;
  detail::BasedProbabilitiesInRow a = detail::read_based_probabilities(fields, dim);
  return detail::build_from_row({{"trials", trials_index, 1}, {"decay", decay_index, 1}, a.base, a.p}, [&] {
    return std::make_unique<MultinomialModel>(std::move(a.probabilities), trials);
  });
}

std::unique_ptr<Model> multinomial_from_json(const nlohmann::json& object) {
  const detail::JsonFields fields(object, kFamily, {"p", "trials", "decay"});
  Trials trials;
  if (fields.has("trials")) {
    const nlohmann::json& value = fields.required("trials");
    if (value == "all") {
      trials.kind = Trials::all;
    } else if (value.is_number() && value.get<double>() >= 1.0 && value.get<double>() <= kMaxTrials &&
               value.get<double>() == std::floor(value.get<double>())) {
      trials.kind = Trials::fixed;
      trials.count = static_cast<long>(value.get<double>());
    } else {
      throw fields.invalid("trials", "a whole number of trials in [1, 10^9] or \"all\"");
    }
  }
  if (fields.has("decay")) {
    if (trials.kind != Trials::all) throw fields.invalid("decay", "no decay (it applies only with \"trials\": \"all\")");
    trials.decay = fields.real("decay");
  }
  return std::make_unique<MultinomialModel>(fields.probabilities("p"), trials);
}

}  // namespace

const FamilyInfo& multinomial_family() {
  static const FamilyInfo info{kFamily, 3, &decode_multinomial, &multinomial_from_json};
  return info;
}

}  // namespace ppk
