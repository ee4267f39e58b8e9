// Multinomial models and their kernels (see multinomial.hpp; JMLR 2004 section 3.3).
//
// Every kernel here is built from the sum S = sum_d (a_d a'_d)^rho over the D categories:
//   one event:  k = S                                   (any rho)
//   s trials:   k = S^s                                 (rho = 1/2, eq. 6, multinomial theorem)
//   all s:      k = sum_s (lambda S)^s = 1/(1 - lambda S)  (rho = 1/2, geometric series)
// With a_d = b + (listed deviations), write A_d = a_d^rho = b^rho + u_d (u_d = 0 off the list):
//   S = D b^rho b'^rho + b^rho U' + b'^rho U + sum over coordinates listed by both of u_d u'_d,
// U = sum_d u_d, so a pair costs O(listed) however large D is.
// A leveled base (unlisted a_d = s m_d, m quantised to K levels) has the same shape: with
// A_d = (s m_d)^rho + u_d,
//   S = E(2 rho) s^rho s'^rho + s^rho W' + s'^rho W + sum over coordinates listed by both of u_d u'_d,
// E(e) = sum_k n_k v_k^e, W = sum_d u_d m_d^rho; the uniform base is m_d = 1/D (E(2 rho) D^(2 rho) = D,
// W D^rho = U). So each row keeps three scalars (base_sum, base_power, weighted_excess) and its u_d.
#include "ppk/families/multinomial.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "families/gamma_integrals.hpp"
#include "ppk/core/family_fields.hpp"
#include "ppk/core/model_fields.hpp"
#include "ppk/core/row.hpp"

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
constexpr double kLevelSumTolerance = 1e-9;  // how far sum_k n_k v_k may be from 1

// A 64-bit FNV-1a digest of a level table (values and counts, bit for bit): two rows compare only
// under the same table, checked per pair by comparing digests (a row's sample space names it).
std::uint64_t table_digest(const BaseLevels& levels) {
  std::uint64_t hash = 1469598103934665603ULL;
  const auto mix = [&hash](const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  };
  for (std::size_t k = 0; k < levels.value.size(); ++k) {
    mix(&levels.value[k], sizeof(double));
    mix(&levels.count[k], sizeof(long));
  }
  return hash;
}
}  // namespace

double BaseLevels::power_sum(double exponent) const {
  double sum = 0.0;
  for (std::size_t k = 0; k < value.size(); ++k) sum += static_cast<double>(count[k]) * std::pow(value[k], exponent);
  return sum;
}

LeveledBase quantised_pooled_base(const std::vector<double>& pooled_counts) {
  const std::size_t dim = pooled_counts.size();
  double total = 0.0;
  for (double c : pooled_counts) {
    if (!(c >= 0.0) || !std::isfinite(c))
      throw std::invalid_argument("the pooled base needs counts >= 0, got " + format_number(c));
    total += c;
  }
  // m_d = (C_d + 1/2) / (C + D/2): half a count per word keeps every word of the vocabulary
  // (including those the training file never uses) at a positive base probability.
  std::vector<double> smoothed(dim);
  for (std::size_t d = 0; d < dim; ++d) smoothed[d] = (pooled_counts[d] + 0.5) / (total + 0.5 * static_cast<double>(dim));
  const auto [low, high] = std::minmax_element(smoothed.begin(), smoothed.end());
  const double log_low = std::log(*low), width = (std::log(*high) - log_low) / BaseLevels::kMaxLevels;
  // Geometric bins: word d in bin floor((log m_d - log min) / width), the top edge in the last bin.
  std::vector<int> bin(dim);
  std::vector<double> bin_sum(BaseLevels::kMaxLevels, 0.0);
  std::vector<long> bin_count(BaseLevels::kMaxLevels, 0);
  for (std::size_t d = 0; d < dim; ++d) {
    const double position = width > 0.0 ? (std::log(smoothed[d]) - log_low) / width : 0.0;
    bin[d] = std::min(static_cast<int>(position), static_cast<int>(BaseLevels::kMaxLevels) - 1);
    bin_sum[bin[d]] += smoothed[d];
    ++bin_count[bin[d]];
  }
  // The non-empty bins become the levels, each valued at its words' mean (so sum_k n_k v_k = sum_d m_d).
  LeveledBase base;
  std::vector<int> level_of_bin(BaseLevels::kMaxLevels, -1);
  double level_total = 0.0;
  for (std::size_t b = 0; b < BaseLevels::kMaxLevels; ++b) {
    if (bin_count[b] == 0) continue;
    level_of_bin[b] = static_cast<int>(base.levels.value.size());
    base.levels.value.push_back(bin_sum[b] / static_cast<double>(bin_count[b]));
    base.levels.count.push_back(bin_count[b]);
    level_total += bin_sum[b];
  }
  for (double& v : base.levels.value) v /= level_total;  // rounding only
  base.word_level.resize(dim);
  for (std::size_t d = 0; d < dim; ++d) base.word_level[d] = level_of_bin[bin[d]];
  return base;
}

struct MultinomialModel::Impl {
  SparseProbabilities a;  // leveled: the listed a_d, base = the share s
  Trials trials;
  std::unique_ptr<LeveledProbabilities> leveled;  // null for a uniform base
  std::uint64_t base_table = 0;                   // table_digest of the levels (0: uniform)
  // Set by prepare():
  double rho = 0.0;
  double base_sum = 0.0;    // D (uniform) or E(2 rho) (leveled): see the top of this file
  double base_power = 0.0;  // b^rho (uniform) or s^rho (leveled)
  // u_d = a_d^rho - b^rho (leveled: a_d^rho - (s m_d)^rho) for the listed coordinates, each next to its index: the merge
  // below reads one array per model, as LIBSVM's own sparse dot product does.
  struct Excess {
    long index;
    double value;
  };
  std::vector<Excess> excess;
  double excess_sum = 0.0;  // U = sum_d u_d (leveled: W = sum_d u_d m_d^rho)

  // The constructors' checks (see multinomial.hpp) and the probabilities and trials they keep.
  void set(SparseProbabilities probabilities, Trials model_trials);
  void set(LeveledProbabilities probabilities, Trials model_trials);

  // S = sum_d (a_d a'_d)^rho (see the top of this file). The merge over listed coordinates
  // advances without branches: both sides step on a tie, the smaller index steps otherwise.
  double power_sum(const Impl& b) const {
    double sum = base_sum * base_power * b.base_power + base_power * b.excess_sum + b.base_power * excess_sum;
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
    if (rho <= 0.0 || rho != b.rho || a.dim != b.a.dim || trials.kind != b.trials.kind ||
        trials.count != b.trials.count || base_table != b.base_table)
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
    double sum = base_sum * base_power * b.base_power + base_power * b.excess_sum + b.base_power * excess_sum;
    for (const Excess& e : b.excess) sum += u[e.index] * e.value;
    out[k] = sum;
  }
  for (const Excess& e : excess) u[e.index] = 0.0;
}

namespace {
// Checks that `sum` (of every a_d) is within 1e-6 of 1 and renormalises a (the listed values and the
// base, or the share of a leveled row) when it is further than rounding from 1.
void normalise_sum(SparseProbabilities& a, double sum) {
  if (!(std::fabs(sum - 1.0) <= kSumTolerance))
    throw field_error(kFamily, "p", "probabilities summing to 1 (within 1e-6)", "a sum of " + format_number(sum));
  // Dividing by a sum within rounding of 1 would change the last bits of probabilities that were
  // already renormalised (a row or JSON round trip must be exact): only a larger error is divided out.
  if (std::fabs(sum - 1.0) > static_cast<double>(a.dim) * std::numeric_limits<double>::epsilon()) {
    a.base /= sum;
    for (double& v : a.value) v /= sum;
  }
}

// The checks of a leveled row's table and levels (see the constructor's comment in multinomial.hpp).
void check_levels(const LeveledProbabilities& p) {
  const BaseLevels& levels = p.levels;
  const std::size_t count = levels.value.size();
  if (count < 1 || count > BaseLevels::kMaxLevels || levels.count.size() != count)
    throw field_error(kFamily, "levels", "1 to 32 levels, as many values as counts",
                      std::to_string(count) + " values and " + std::to_string(levels.count.size()) + " counts");
  long words = 0;
  double mass = 0.0;
  for (std::size_t k = 0; k < count; ++k) {
    if (!(levels.value[k] > 0.0 && levels.value[k] <= 1.0))
      throw detail::element_error(kFamily, "level values", static_cast<long>(k), "a base probability in (0, 1]",
                                  levels.value[k]);
    if (levels.count[k] < 1 || levels.count[k] > p.dim)
      throw detail::element_error(kFamily, "level counts", static_cast<long>(k),
                                  "a whole number of words in [1, D = " + std::to_string(p.dim) + "]",
                                  static_cast<double>(levels.count[k]));
    words += levels.count[k];
    mass += static_cast<double>(levels.count[k]) * levels.value[k];
  }
  if (words != p.dim)
    throw field_error(kFamily, "level counts", "word counts summing to D = " + std::to_string(p.dim),
                      "a sum of " + std::to_string(words));
  if (!(std::fabs(mass - 1.0) <= kLevelSumTolerance))
    throw field_error(kFamily, "level values", "a base summing to 1 (sum_k n_k v_k within 1e-9)",
                      "a sum of " + format_number(mass));
  if (p.level.size() != p.index.size())
    throw field_error(kFamily, "word levels", "one level per listed word",
                      std::to_string(p.level.size()) + " levels for " + std::to_string(p.index.size()) + " words");
  std::vector<long> listed_at(count, 0);
  for (std::size_t i = 0; i < p.level.size(); ++i) {
    const int k = p.level[i];
    if (k < 0 || static_cast<std::size_t>(k) >= count)
      throw detail::element_error(kFamily, "word levels", p.index[i],
                                  "a level in [1, K = " + std::to_string(count) + "] (row) or [0, K) (JSON)",
                                  static_cast<double>(k));
    if (++listed_at[k] > levels.count[k])
      throw detail::element_error(
          kFamily, "word levels", p.index[i],
          "at most n_k = " + std::to_string(levels.count[k]) + " listed words at level " + std::to_string(k),
          static_cast<double>(k));
  }
  if (!(p.share >= 0.0 && p.share <= 1.0))
    throw field_error(kFamily, "base", "the prior's share s in [0, 1]", format_number(p.share));
}

Trials checked_trials(Trials trials) {
  switch (trials.kind) {
    case Trials::one_event:
      trials.count = 0;
      trials.decay = 1.0;
      break;
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
  return trials;
}

// The row's and JSON's trials (0, s or -1) and optional decay as Trials (checked_trials checks the ranges).
Trials trials_of(const MultinomialParameters& parameters) {
  if (parameters.trials < -1)
    throw field_error(kFamily, "trials", "0 (one event), a whole number of trials in [1, 10^9] or -1 (all)",
                      std::to_string(parameters.trials));
  Trials trials;
  trials.kind = parameters.trials == 0 ? Trials::one_event : parameters.trials > 0 ? Trials::fixed : Trials::all;
  trials.count = std::max(parameters.trials, 0L);
  if (parameters.decay) {
    if (trials.kind != Trials::all)
      throw field_error(kFamily, "decay", "no decay (it applies only with trials -1 in a row, \"all\" in JSON)",
                        format_number(*parameters.decay));
    trials.decay = *parameters.decay;
  }
  return trials;
}

// A leveled row's probabilities: its level counts as whole numbers, and each listed word's level from
// the (word, level + 1) entries, which must name exactly the listed words (a row's sparse block may
// miss one or hold a stray one). check_levels checks the rest.
LeveledProbabilities leveled_of(MultinomialParameters parameters) {
  SparseProbabilities& a = parameters.a;
  LeveledProbabilities leveled;
  leveled.dim = a.dim;
  leveled.share = a.base;
  leveled.levels.value = std::move(parameters.level_values);
  for (std::size_t k = 0; k < parameters.level_counts.size(); ++k) {
    const double count = parameters.level_counts[k];
    if (count != std::floor(count) || count < 1.0 || count > static_cast<double>(a.dim))
      throw detail::element_error(kFamily, "level counts", static_cast<long>(k),
                                  "a whole number of words in [1, D = " + std::to_string(a.dim) + "]", count);
    leveled.levels.count.push_back(static_cast<long>(count));
  }
  const long level_count = static_cast<long>(leveled.levels.value.size());
  std::size_t next = 0;
  for (const auto& [word, level] : parameters.word_levels) {
    if (next < a.index.size() && a.index[next] < word)
      throw detail::element_error(kFamily, "word levels", a.index[next], "the level in [1, K] of the listed word", 0.0);
    if (next == a.index.size() || a.index[next] != word)
      throw detail::element_error(kFamily, "word levels", word, "no level here (only the words listed in p carry one)",
                                  level);
    if (level != std::floor(level) || level < 1.0 || level > static_cast<double>(level_count))
      throw detail::element_error(
          kFamily, "word levels", word,
          "a whole number in [1, K = " + std::to_string(level_count) + "] (the level + 1, as a row stores it)", level);
    leveled.level.push_back(static_cast<int>(level) - 1);
    ++next;
  }
  if (next < a.index.size())
    throw detail::element_error(kFamily, "word levels", a.index[next], "the level in [1, K] of the listed word", 0.0);
  leveled.index = std::move(a.index);
  leveled.value = std::move(a.value);
  return leveled;
}
}  // namespace

template <class Archive>
void MultinomialParameters::fields(Archive& archive) {
  const auto dim = archive.dimension("dim", a.dim, 1, detail::kMaxDimension);
  archive.count_or_keyword("trials", trials, kMaxTrials, "all");
  archive.optional_real("decay", decay);
  const detail::ListedLayout leveled_layout{"levels", "share", "listed"};
  archive.listed_probabilities("p", a, dim, leveled_layout, !level_values.empty());
  const auto levels =
      archive.trailing_group("levels", static_cast<long>(level_values.size()), static_cast<long>(BaseLevels::kMaxLevels));
  if (levels.value == 0) return;  // a uniform base: the row ends at 6 + D
  archive.group_reals("level values", level_values, levels, "value");
  archive.group_whole_numbers("level counts", level_counts, levels, "count");
  archive.listed_numbers("word levels", word_levels, a, dim, leveled_layout, "level");
}

void MultinomialModel::Impl::set(SparseProbabilities probabilities, Trials model_trials) {
  a = detail::checked_probabilities(kFamily, std::move(probabilities));
  normalise_sum(a, a.sum());
  trials = checked_trials(model_trials);
}

// sum_d a_d = sum over listed d of a_d + s (1 - sum over listed d of m_d).
void MultinomialModel::Impl::set(LeveledProbabilities probabilities, Trials model_trials) {
  check_levels(probabilities);
  // Listed word i keeps level i only if every listed word stays listed: checked_probabilities drops a
  // value equal to the share and lists every word when one is 0, so both are refused here.
  for (std::size_t i = 0; i < probabilities.index.size(); ++i)
    if (probabilities.value[i] == probabilities.share || probabilities.value[i] == 0.0)
      throw detail::element_error(kFamily, "p", probabilities.index[i],
                                  "a probability > 0 other than the share (a listed word of a row with a pooled base)",
                                  probabilities.value[i]);
  SparseProbabilities listed;
  listed.dim = probabilities.dim;
  listed.base = probabilities.share;
  listed.index = probabilities.index;
  listed.value = probabilities.value;
  a = detail::checked_probabilities(kFamily, std::move(listed));
  double listed_sum = 0.0, listed_base = 0.0;
  for (std::size_t i = 0; i < probabilities.index.size(); ++i) {
    listed_sum += a.value[i];
    listed_base += probabilities.levels.value[static_cast<std::size_t>(probabilities.level[i])];
  }
  normalise_sum(a, listed_sum + probabilities.share * (1.0 - listed_base));
  probabilities.share = a.base;
  probabilities.value = a.value;
  base_table = table_digest(probabilities.levels);
  leveled = std::make_unique<LeveledProbabilities>(std::move(probabilities));
  trials = checked_trials(model_trials);
}

MultinomialModel::MultinomialModel(SparseProbabilities a, Trials trials) : impl_(std::make_unique<Impl>()) {
  impl_->set(std::move(a), trials);
}

MultinomialModel::MultinomialModel(LeveledProbabilities a, Trials trials) : impl_(std::make_unique<Impl>()) {
  impl_->set(std::move(a), trials);
}

MultinomialModel::MultinomialModel(Parameters parameters) : impl_(std::make_unique<Impl>()) {
  const Trials trials = trials_of(parameters);
  if (parameters.level_values.empty() && parameters.level_counts.empty() && parameters.word_levels.empty())
    impl_->set(std::move(parameters.a), trials);
  else
    impl_->set(leveled_of(std::move(parameters)), trials);
}

// What the row and JSON writers write: the row's trials and decay (none for 1), and a leveled row's
// levels, each listed word's stored as level + 1.
MultinomialParameters MultinomialModel::parameters() const {
  const Impl& m = *impl_;
  Parameters parameters;
  parameters.a = m.a;
  parameters.trials = m.trials.kind == Trials::all ? -1 : m.trials.count;
  if (m.trials.kind == Trials::all && m.trials.decay != 1.0) parameters.decay = m.trials.decay;
  if (!m.leveled) return parameters;
  const BaseLevels& levels = m.leveled->levels;
  parameters.level_values = levels.value;
  parameters.level_counts.assign(levels.count.begin(), levels.count.end());
  parameters.word_levels.reserve(m.a.listed());
  for (std::size_t i = 0; i < m.a.listed(); ++i)
    parameters.word_levels.emplace_back(m.a.index[i], m.leveled->level[i] + 1.0);
  return parameters;
}

MultinomialModel::~MultinomialModel() = default;

const SparseProbabilities& MultinomialModel::probabilities() const { return impl_->a; }
const LeveledProbabilities* MultinomialModel::leveled() const { return impl_->leveled.get(); }
const Trials& MultinomialModel::trials() const { return impl_->trials; }

const FamilyInfo& MultinomialModel::family() const { return multinomial_family(); }

// A leveled row names its level table, so that rows under different bases are refused as a pair.
SampleSpace MultinomialModel::sample_space() const {
  const Impl& m = *impl_;
  std::string kind = "counts";
  switch (m.trials.kind) {
    case Trials::one_event: kind = "categories"; break;
    case Trials::fixed: kind = "counts with " + std::to_string(m.trials.count) + " trials"; break;
    case Trials::all: break;
  }
  if (m.leveled) {
    std::ostringstream table;
    table << std::hex << std::setw(16) << std::setfill('0') << m.base_table;
    kind += " under the pooled base " + table.str() + " (" + std::to_string(m.leveled->levels.value.size()) +
            " levels; rows fitted with another pool file or base do not compare)";
  }
  return {kind, m.a.dim};
}

void MultinomialModel::prepare(const KernelParams& params) {
  detail::check_rho(kFamily, params);
  Impl& m = *impl_;
  if (m.trials.kind != Trials::one_event && params.rho != 0.5)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the kernel over counts has a closed form only for rho = 1/2, the Bhattacharyya "
                            "kernel (JMLR 2004 eq. 6); use -g 0.5 (got rho = " +
                            format_number(params.rho) + ")");
  if (m.trials.kind == Trials::all && m.trials.decay == 1.0)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the sum over all trial counts, 1/(1 - B), diverges for identical models (B = 1), "
                            "so the self-kernel k(p, p) is infinite; set a decay < 1 "
                            "(JSON field \"decay\", row index 5) to weight s trials by decay^s");
  m.rho = params.rho;
  m.base_power = std::pow(m.a.base, m.rho);
  m.excess.resize(m.a.listed());
  m.excess_sum = 0.0;
  if (!m.leveled) {
    m.base_sum = static_cast<double>(m.a.dim);
    for (std::size_t i = 0; i < m.a.listed(); ++i) {
      m.excess[i] = {m.a.index[i], std::pow(m.a.value[i], m.rho) - m.base_power};
      m.excess_sum += m.excess[i].value;
    }
    return;
  }
  // u_d = a_d^rho - (s m_d)^rho = a_d^rho - s^rho m_d^rho, W = sum_d u_d m_d^rho, E(2 rho) = sum_k n_k v_k^(2 rho).
  const LeveledProbabilities& leveled = *m.leveled;
  m.base_sum = leveled.levels.power_sum(2.0 * m.rho);
  for (std::size_t i = 0; i < m.a.listed(); ++i) {
    const double base_power = std::pow(leveled.levels.value[static_cast<std::size_t>(leveled.level[i])], m.rho);
    m.excess[i] = {m.a.index[i], std::pow(m.a.value[i], m.rho) - m.base_power * base_power};
    m.excess_sum += m.excess[i].value * base_power;
  }
}

// phi = c beta + u of exact_map.hpp from what prepare() keeps: c = base_power, |beta|^2 = base_sum,
// u = excess and <beta, u> = excess_sum.
ExactFeatures MultinomialModel::exact_features() const {
  const Impl& m = *impl_;
  if (m.trials.kind != Trials::one_event)
    throw KernelDomainError(std::string(kFamily) + " over " + sample_space().describe() +
                            ": the kernel over counts has a feature for every count vector, no exact map is "
                            "written out; use a Nystrom map");
  ExactFeatures features;
  features.dim = m.a.dim;
  features.index.reserve(m.excess.size());
  features.value.reserve(m.excess.size());
  for (const Impl::Excess& excess : m.excess) {
    features.index.push_back(excess.index);
    features.value.push_back(excess.value);
  }
  features.shared = m.base_power;
  features.shared_norm2 = m.base_sum;
  features.shared_dot = m.excess_sum;
  features.shared_is_uniform = !m.leveled;
  return features;
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

namespace {
// A leveled row does not say which unlisted word has which base level, so it cannot draw a word
// nor give its probability.
void refuse_leveled(const MultinomialModel& model, const std::string& what) {
  if (model.leveled() != nullptr)
    throw KernelDomainError(std::string(kFamily) + " over " + model.sample_space().describe() + ": " + what +
                            " needs every word's base level, which a row with a pooled base does not carry "
                            "(only its listed words' levels)");
}
}  // namespace

bool MultinomialModel::can_sample() const { return impl_->trials.kind != Trials::all && !impl_->leveled; }

long MultinomialModel::sample_size() const { return impl_->trials.kind == Trials::one_event ? 1 : impl_->a.dim; }

// One event: Z(rho) = sum_d a_d^rho = (D - listed) b^rho + sum over listed d of a_d^rho.
// Counts: TiltedCounts.
double MultinomialModel::log_tilted_normalizer(double rho) const {
  refuse_leveled(*this, "the tilted normalizer Z(rho)");
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
  refuse_leveled(*this, "sampling");
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
      d = j +
          static_cast<long>(std::upper_bound(unlisted_below.begin(), unlisted_below.end(), j) - unlisted_below.begin());
    }
    samples(0, s) = static_cast<double>(d);
  }
}

// One event: log a_x. Counts: log pmf(c) = log s! + sum_d [c_d log a_d - log c_d!] (-inf where a_d = 0
// < c_d, or where the counts do not sum to s).
double MultinomialModel::log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  refuse_leveled(*this, "log a_x");
  const Impl& m = *impl_;
  if (m.trials.kind == Trials::one_event) return std::log(m.a.at(static_cast<long>(x[0])));
  if (x.sum() != static_cast<double>(m.trials.count)) return -std::numeric_limits<double>::infinity();
  double log_p = detail::log_gamma(x.sum() + 1.0);
  for (long d = 0; d < m.a.dim; ++d)
    if (x[d] != 0.0) log_p += x[d] * std::log(m.a.at(d)) - detail::log_gamma(x[d] + 1.0);
  return log_p;
}

const FamilyInfo& multinomial_family() {
  static const FamilyInfo info = make_family<MultinomialModel>(kFamily, 3);
  return info;
}

}  // namespace ppk
