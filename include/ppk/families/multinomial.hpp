// Multinomial models with event probabilities a_1..a_D (sum 1).
//
// Kernels (JMLR 2004, section 3.3):
//   one event (X = one of D categories), any rho:  k = sum_d (a_d a'_d)^rho
//   s trials (counts summing to s), rho = 1/2:     k = (sum_d sqrt(a_d a'_d))^s          (eq. 6)
//   summed over all s, rho = 1/2:                  k = sum_s (lambda B)^s = 1 / (1 - lambda B),
//       B = sum_d sqrt(a_d a'_d), lambda = decay in (0, 1]. The paper's sum is lambda = 1,
//       which diverges for identical models (B = 1), so its self-kernel is infinite:
//       rows with "all" need a decay < 1 to be used in an SVM.
// With a_d = base + u_d, the sum is D (b b')^rho + b^rho U' + b'^rho U + sum over
// common listed d of u_d u'_d (u_d = a_d^rho - b^rho), so sparse rows cost O(listed).
//
// Sampling (sampling.hpp), any rho > 0. One event: p^rho / Z picks category d with probability
// a_d^rho / Z, Z(rho) = sum_d a_d^rho; a sample is the category d (0-based). s trials: p^rho / Z over
// the count vectors c (summing to s) has Z(rho) = sum_c pmf(c)^rho, summed exactly by dynamic
// programming over the coordinates (multinomial.cpp) when D (s + 1)^2 / 2 <= 10^7 (KernelDomainError
// otherwise); a sample is the count vector c. (The kernel over counts itself needs rho = 1/2.) All
// trial counts: not samplable (the sum over s is not a distribution).
//
// A leveled base (`ppk fit multinomial --base pooled`; docs/base-measure.md): the prior
// Dirichlet(A m) centred on a base measure m quantised to K <= 32 levels (level k: n_k words with
// m_d = v_k). A row lists the words it has seen, each with its level; every other word has
// a_d = s m_d, s = A / (N + A) the prior's share. With u_d = a_d^rho - (s m_d)^rho on the listed words,
//   sum_d (a_d a'_d)^rho = (s s')^rho E(2 rho) + s'^rho W + s^rho W' + sum over common listed d of u_d u'_d,
// E(e) = sum_k n_k v_k^e, W = sum over listed d of u_d m_d^rho: O(listed + K) per row and pair, exact.
// The uniform base is the special case K = 1, v_1 = 1/D. Two rows compare only under the same
// level table (their sample spaces name it). A leveled row does not say which unlisted word has
// which level, so it cannot be sampled nor give log a_x for an unlisted x (KernelDomainError).
//
// Row fields (family code 3): 3: D (>= 1)   4: trials (0 one event, s >= 1 fixed, -1 all)
//   5: decay for "all" (0 or absent means 1)   6: base probability (leveled: the share s)
//   7..6+D: a_d for coordinates that differ from the base (absent or 0 means base).
// A leveled row continues (an old row ends at 6+D, so it decodes as before):
//   7+D: K (1..32)   8+D..7+D+K: level values v_k   8+D+K..7+D+2K: level counts n_k
//   8+D+2K..7+2D+2K: the level (1..K) of each listed word, at the word's offset (absent elsewhere).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ppk/core/exact_map.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/model.hpp"
#include "ppk/core/sampling.hpp"
#include "ppk/core/sparse_probabilities.hpp"

namespace ppk {

struct Trials {
  enum Kind { one_event, fixed, all };
  Kind kind = one_event;
  long count = 0;      // s, for kind == fixed
  double decay = 1.0;  // lambda, for kind == all
};

// A base measure quantised to K levels: level k holds count[k] of the D words, each with base
// probability value[k]; sum_k count[k] value[k] = 1.
struct BaseLevels {
  static constexpr std::size_t kMaxLevels = 32;
  std::vector<double> value;                // v_k > 0
  std::vector<long> count;                  // n_k >= 1, summing to D
  double power_sum(double exponent) const;  // E(exponent) = sum_k n_k v_k^exponent
  bool operator==(const BaseLevels& other) const { return value == other.value && count == other.count; }
};

// A leveled base with every word's level: what a pool file stores (the rows carry only `levels`).
struct LeveledBase {
  BaseLevels levels;
  std::vector<int> word_level;  // D entries, 0-based levels
};
// The base of `ppk fit multinomial --base pooled`: the pooled counts C_d of the training file
// smoothed by half a count, m_d = (C_d + 1/2) / (C + D/2), then quantised to at most
// BaseLevels::kMaxLevels geometric bins of m_d, each level's value the mean m_d of its words (so the
// quantised base still sums to 1; levels in increasing order). std::invalid_argument if some C_d < 0.
LeveledBase quantised_pooled_base(const std::vector<double>& pooled_counts);

// The probabilities of a leveled row: the listed words' a_d and levels; every other word's
// a_d = share * m_d.
struct LeveledProbabilities {
  long dim = 0;
  double share = 0.0;  // s = A / (N + A)
  BaseLevels levels;
  std::vector<long> index;    // listed words, 0-based, strictly increasing
  std::vector<double> value;  // their a_d
  std::vector<int> level;     // their 0-based levels
};

// The parameters, declared field by field in row order (include/ppk/core/family_fields.hpp; the row layout
// above): D, "trials", "decay", the probabilities "p" (base, then the listed a_d) and, for a leveled
// row only, the trailing group "levels" (K, "level values", "level counts") and "word levels".
// JSON: {"p": [dense a_d], "trials", "decay"}, or for a leveled row {"dim", "share", "levels":
// {"value", "count"}, "listed": {"index", "p", "level"}, "trials", "decay"} (levels from 0).
struct MultinomialParameters {
  SparseProbabilities a;        // a leveled row: the listed a_d, base = the share s
  long trials = 0;              // 0 one event, s >= 1 trials, -1 all trial counts
  std::optional<double> decay;  // lambda, only with trials -1 (absent: 1)
  // A leveled row (all empty for a uniform base): v_k, n_k (whole numbers, held as read), and each
  // listed word's (index, level + 1), as the row's sparse block holds them.
  std::vector<double> level_values;
  std::vector<double> level_counts;
  std::vector<std::pair<long, double>> word_levels;
  template <class Archive>
  void fields(Archive& archive);
};

class MultinomialModel : public Model, public SamplableModel, public MappableModel {
 public:
  // Throws ModelError (a FieldError naming the field) as the constructors below, and unless trials
  // >= -1, a decay comes only with trials -1, and (a leveled row) the level counts are whole numbers
  // and exactly the listed words carry a level.
  using Parameters = MultinomialParameters;
  explicit MultinomialModel(Parameters parameters);
  // Throws ModelError unless every a_d is in [0, 1], they sum to 1 (within 1e-6;
  // then renormalised), s >= 1 and decay in (0, 1].
  MultinomialModel(SparseProbabilities a, Trials trials);
  // A leveled row: also checks the level table (values in (0, 1], counts >= 1 summing to D,
  // sum_k n_k v_k = 1 within 1e-9), each listed word's level (in 0..K-1, at most n_k listed words
  // at level k) and the share s in [0, 1].
  MultinomialModel(LeveledProbabilities a, Trials trials);
  // A uniform-base row's probabilities. A leveled row's listed a_d, with base = the share s
  // (an unlisted word has a_d = s m_d: see leveled()).
  const SparseProbabilities& probabilities() const;
  // The level table and listed words' levels of a leveled row; null for a uniform base.
  const LeveledProbabilities* leveled() const;
  const Trials& trials() const;
  Parameters parameters() const;

  ~MultinomialModel() override;
  const FamilyInfo& family() const override;
  SampleSpace sample_space() const override;
  void prepare(const KernelParams& params) override;  // KernelDomainError: trials need rho = 1/2
  double log_kernel(const Model& other) const override;
  double kernel(const Model& other) const override;
  // One pass over this model's listed coordinates per call, then O(listed) per other model.
  void kernel_many(const Model* const* others, std::size_t n, double* out) const override;
  void log_kernel_many(const Model* const* others, std::size_t n, double* out) const override;

  // MappableModel interface (exact_map.hpp), one event only: phi_d = a_d^rho, with c = b^rho
  // (leveled: s^rho, beta_d = m_d^rho), u the listed u_d and <beta, u> = U (leveled: W) of the top
  // of this file. KernelDomainError for s trials or all trial counts (the map of counts has a
  // feature per count vector).
  ExactFeatures exact_features() const override;

  // SamplableModel interface: see sampling.hpp (one event or s trials).
  bool can_sample() const override;
  long sample_size() const override;
  double log_tilted_normalizer(double rho) const override;
  void sample_tilted(double rho, SampleGenerator& generator, Eigen::Ref<Eigen::MatrixXd> samples) const override;
  double log_probability(const Eigen::Ref<const Eigen::VectorXd>& x) const override;

 private:
  struct Impl;
  static const Impl& impl_of(const Model& other);  // other: a multinomial (the dispatcher checks)
  template <class FromSum>
  void batch(const Model* const* others, std::size_t n, double* out, FromSum from_sum) const;
  std::unique_ptr<Impl> impl_;
};

const FamilyInfo& multinomial_family();

}  // namespace ppk
